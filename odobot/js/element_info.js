([xp, keep]) => { const el = byXpath(xp); return el ? info(el, keep) : null; }
