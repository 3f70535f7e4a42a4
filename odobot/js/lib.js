// Shared helpers (OdoBot III-A): XPaths written like the executor's set-of-mark script
// (every step indexed), element lookup by XPath, attribute-filtered HTML, element records.
const xpathOf = (el) => {
  const parts = [];
  for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
    let i = 1;
    for (let s = n.previousElementSibling; s; s = s.previousElementSibling) {
      if (s.tagName === n.tagName) i++;
    }
    parts.unshift(n.tagName.toLowerCase() + '[' + i + ']');
  }
  return '/' + parts.join('/');
};
const byXpath = (xp, root) => document.evaluate(
  xp, root || document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
const filtered = (e, keep) => {
  const c = e.cloneNode(true);
  for (const n of [c, ...c.querySelectorAll('*')]) {
    for (const a of Array.from(n.attributes)) if (!keep.includes(a.name)) n.removeAttribute(a.name);
  }
  for (const n of c.querySelectorAll('script,style')) n.remove();
  return squash(c.outerHTML).slice(0, 600);
};
const info = (el, keep) => {
  const attrs = {};
  for (const a of Array.from(el.attributes)) if (keep.includes(a.name)) attrs[a.name] = a.value;
  if (el.isContentEditable) attrs['contenteditable'] = 'true';
  let options = [], group = [];
  if (el.tagName === 'SELECT') options = Array.from(el.options).map((o) => o.text.trim());
  if (el.type === 'radio' && el.name) {
    const rs = Array.from(document.querySelectorAll('input[type=radio]'))
      .filter((r) => r.name === el.name);
    group = rs.map(xpathOf);
    options = rs.map((r) => r.value);
  }
  const lab = el.labels && el.labels.length ? el.labels[0].innerText : '';
  const text = squash(el.innerText || lab || el.getAttribute('aria-label') || el.placeholder
    || el.value || '').slice(0, 120);
  return {tag: el.tagName.toLowerCase(), text, html: filtered(el, keep), attrs, options, group,
    xpath: xpathOf(el)};
};
const visible = (el) => { const r = el.getBoundingClientRect(); return r.width >= 1 && r.height >= 1; };
