// Children of a dynamicXpath's container whose root tag is `tag`, each through its suffix
// (OdoBot Fig. 2): the options an attribute-filtered prompt offers.
([prefix, tag, suffix, keep]) => {
  const box = byXpath(prefix);
  if (!box) return null;
  const out = [];
  for (const ch of Array.from(box.children)) {
    if (ch.tagName.toLowerCase() !== tag) continue;
    const target = suffix ? byXpath('.' + suffix, ch) : ch;
    if (target && visible(target)) out.push(info(target, keep));
  }
  return out;
}
