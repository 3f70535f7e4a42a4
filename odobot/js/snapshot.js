// The filtered DOM snapshot of OdoBot III-A: no scripts, no styles, no SVG path data.
() => {
  const c = document.documentElement.cloneNode(true);
  for (const n of c.querySelectorAll('script,style,noscript')) n.remove();
  for (const n of c.querySelectorAll('svg path')) n.removeAttribute('d');
  for (const n of c.querySelectorAll('[data-pw-label]')) n.removeAttribute('data-pw-label');
  return c.outerHTML;
}
