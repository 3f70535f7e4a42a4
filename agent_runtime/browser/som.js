// Set-of-mark labeling in one round trip (WebRider Appendix H, Table 42 executor row).
// Returns {labels, text, title, url}; tags each labeled element with data-pw-label.
// A secret field's value (a password, a PIN, a card number, a field the contract marks
// secret) never leaves the page: it comes back as the fixed mask, or '' when empty.
({maxText, maxLabel, secretField, secretLabels, mask}) => {
  const secretRe = new RegExp(secretField, 'i');
  const secretNames = new Set((secretLabels || []).map((s) => s.trim().toLowerCase()));
  const SEL = 'a[href],a[onclick],button,input,select,textarea,summary,[contenteditable=""],' +
    '[contenteditable=true],[role=button],[role=link],[role=checkbox],[role=radio],[role=tab],' +
    '[role=option],[role=menuitem],[role=textbox],[role=switch],[role=combobox],[onclick],[tabindex]';
  const vw = window.innerWidth, vh = window.innerHeight;
  for (const el of document.querySelectorAll('[data-pw-label]')) el.removeAttribute('data-pw-label');
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim().slice(0, 200);
  const labelText = (el, sibling) => {
    if (el.labels && el.labels.length) return norm(el.labels[0].innerText);
    const id = el.id;
    if (id) { const l = document.querySelector('label[for="' + CSS.escape(id) + '"]'); if (l) return norm(l.innerText); }
    // An unassociated <label> right before the field (MiniWoB login-user) names it.
    const prev = el.previousElementSibling;
    if (prev && prev.tagName === 'LABEL' && !prev.htmlFor) return norm(prev.innerText);
    // MiniWoB puts checkbox text in a sibling text node inside the same <label> or <div>.
    const p = el.parentElement;
    return sibling && p && p.tagName !== 'BODY' ? norm(p.innerText) : '';
  };
  const implicitRole = (el, tag, type) => {
    const r = el.getAttribute('role'); if (r) return r;
    if (tag === 'a') return 'link';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'select') return el.multiple ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'input') {
      if (type === 'checkbox' || type === 'radio') return type;
      if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'range') return 'slider';
      return 'textbox';
    }
    if (el.isContentEditable) return 'textbox';
    return 'generic';
  };
  const cands = new Set(document.querySelectorAll(SEL));
  // cursor:pointer regions count only at their top (cursor is inherited) and only when
  // leaf-ish, so a clickable card is one target, not one per descendant.
  for (const el of document.body ? document.body.querySelectorAll('*') : []) {
    if (cands.has(el) || el.childElementCount > 3) continue;
    const st = getComputedStyle(el);
    if (st.cursor !== 'pointer') continue;
    const p = el.parentElement;
    if (p && getComputedStyle(p).cursor === 'pointer') continue;
    cands.add(el);
  }
  const ordered = Array.from(document.querySelectorAll('*')).filter((el) => cands.has(el));
  const xpath = (el) => {
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === n.tagName) i++;
      parts.unshift(n.tagName.toLowerCase() + '[' + i + ']');
    }
    return '/' + parts.join('/');
  };
  const chosen = new Set();
  const out = [];
  for (const el of ordered) {
    if (out.length > maxLabel) break; // labels and targets share one bound (contracts/observation.py)
    const tag = el.tagName.toLowerCase();
    if (tag === 'label' && el.querySelector('input,select,textarea')) continue; // input carries its text
    if (el.getAttribute('tabindex') === '-1' && !el.matches(SEL.replace(',[tabindex]', ''))) continue;
    if (el.type === 'hidden') continue;
    // Descendants of a chosen control (span inside button) are the same target.
    let anc = el.parentElement, inside = false;
    while (anc) { if (chosen.has(anc) && !el.matches('input,select,textarea,a,button')) { inside = true; break; } anc = anc.parentElement; }
    if (inside) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    if (r.bottom <= 0 || r.right <= 0 || r.top >= vh || r.left >= vw) continue;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.display === 'none' || +st.opacity === 0) continue;
    // Occlusion: the element (or its descendant/ancestor) must own its visible center.
    const cx = Math.min(Math.max(r.left + r.width / 2, 0), vw - 1);
    const cy = Math.min(Math.max(r.top + r.height / 2, 0), vh - 1);
    const hit = document.elementFromPoint(cx, cy);
    if (hit && !(el.contains(hit) || hit.contains(el) || (el.labels && Array.from(el.labels).some((l) => l.contains(hit))))) continue;
    chosen.add(el);
    const type = tag === 'input' ? (el.type || 'text').toLowerCase() : null;
    let text = '';
    if (tag === 'input' && (type === 'checkbox' || type === 'radio')) text = labelText(el, true);
    else if (tag === 'input' && ['button', 'submit', 'reset'].includes(type)) text = norm(el.value);
    else if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      text = norm(el.getAttribute('aria-label')) || labelText(el, false) || norm(el.placeholder) || norm(el.name);
    } else {
      text = norm(el.innerText) || norm(el.getAttribute('aria-label')) || norm(el.title);
      if (!text) { const img = el.querySelector('img[alt]'); if (img) text = norm(img.alt); }
      if (!text && tag === 'img') text = norm(el.alt);
    }
    let value = null;
    if (tag === 'select') value = el.selectedIndex >= 0 ? norm(el.options[el.selectedIndex].text) : '';
    else if (tag === 'textarea' || (tag === 'input' && !['checkbox', 'radio'].includes(type))) value = el.value;
    if (value !== null && (tag === 'input' || tag === 'textarea')) {
      const names = [text, el.name, el.id, el.getAttribute('autocomplete'), labelText(el, false)].join(' ');
      const secret = type === 'password' || secretRe.test(names) ||
        /cc-number|cc-csc|one-time-code|current-password|new-password/.test(el.autocomplete || '') ||
        secretNames.has(text.toLowerCase());
      if (secret) value = value ? mask : '';
    }
    const checked = (type === 'checkbox' || type === 'radio') ? el.checked :
      (el.hasAttribute('aria-checked') ? el.getAttribute('aria-checked') === 'true' : null);
    const label = out.length;
    el.setAttribute('data-pw-label', String(label));
    out.push({ label, role: implicitRole(el, tag, type), tag, text, input_type: type, checked, value, xpath: xpath(el),
      bbox: { x: r.left, y: r.top, width: r.width, height: r.height } });
  }
  const body = document.body ? document.body.innerText : '';
  return { labels: out, text: (body || '').slice(0, maxText), title: document.title, url: location.href };
}
