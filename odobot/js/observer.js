// DOM effects (OdoBot Table II): additions, removals, shows and hides, reported to Python as
// they happen. Observation starts at DOMContentLoaded, so parsing is not an effect, and
// typing into a rich-text editor (its own mutations) is not one either.
(() => {
  if (window.__odoObs) return;
  window.__odoObs = true;
  const desc = (el) => {
    if (!el || el.nodeType !== 1) return null;
    const t = el.tagName.toLowerCase();
    if (t === 'script' || t === 'style') return null;
    const cls = typeof el.className === 'string' && el.className.trim()
      ? '.' + el.className.trim().split(/\s+/).join('.') : '';
    const txt = (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 40);
    return t + (el.id ? '#' + el.id : '') + cls + (txt ? ' "' + txt + '"' : '');
  };
  const inEditor = (n) => {
    const e = n.nodeType === 1 ? n : n.parentElement;
    return !!(e && e.closest && e.closest('[contenteditable]'));
  };
  const report = (muts) => {
    const out = {added: [], removed: [], shown: [], hidden: []};
    for (const m of muts) {
      if (inEditor(m.target)) continue;
      if (m.type === 'childList') {
        for (const n of m.addedNodes) { const d = desc(n); if (d) out.added.push(d); }
        for (const n of m.removedNodes) { const d = desc(n); if (d) out.removed.push(d); }
      } else {
        const d = desc(m.target);
        if (d) (getComputedStyle(m.target).display === 'none' ? out.hidden : out.shown).push(d);
      }
    }
    const n = out.added.length + out.removed.length + out.shown.length + out.hidden.length;
    if (n && window.__odoReport) window.__odoReport(out);
  };
  const start = () => new MutationObserver(report).observe(
    document.body || document.documentElement,
    {subtree: true, childList: true, attributes: true, attributeFilter: ['style', 'hidden']});
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})()
