"""Finding a vertex's element on the live page: OdoBot Section IV (Table III) and Fig. 2.

A fixed vertex names its element by XPath; when that XPath now holds something else (a banner
shifted the page, a list was reordered) the element is re-located by its fingerprint (tag,
text, name/id/aria-label) among the live elements, closest XPath first. A dynamicXpath vertex
lists the live container's children; a container that moved is re-located by its suffix.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from odobot.dom_js import (
    CANDIDATES_JS,
    CONTAINER_OPTIONS_JS,
    ELEMENT_INFO_JS,
    KEEP_ATTRS,
)

_STEP = re.compile(r"/([a-z0-9]+)\[(\d+)\]$")
_IDENT = ("name", "id", "aria-label", "placeholder", "type")


def _norm(s: str) -> str:
    return " ".join((s or "").split()).lower()


def fingerprint(tag: str, text: str, attrs: dict[str, str], kind: str) -> tuple[str, ...]:
    """What must stay equal for two elements to be 'the same' control."""
    if kind == "click":
        return (tag, _norm(text))
    if kind == "radio":  # any option of the group will do: the prompt picks among them
        return (tag, _norm(attrs.get("name", "")), "radio")
    return (tag, *(_norm(attrs.get(a, "")) for a in _IDENT))


def element_info(page: Any, xpath: str) -> dict[str, Any] | None:
    return page.evaluate(ELEMENT_INFO_JS, [xpath, list(KEEP_ATTRS)])


def relocate(
    page: Any, xpath: str, tag: str, text: str, attrs: dict[str, str], kind: str
) -> tuple[str | None, bool]:
    """(live XPath of the element, whether it moved); (None, True) if it is gone."""
    want = fingerprint(tag, text, attrs, kind)
    live = element_info(page, xpath) if xpath else None
    if live is not None and fingerprint(live["tag"], live["text"], live["attrs"], kind) == want:
        return xpath, False
    cands = page.evaluate(CANDIDATES_JS, [tag or "*", list(KEEP_ATTRS)]) or []
    same = [c for c in cands if fingerprint(c["tag"], c["text"], c["attrs"], kind) == want]
    if not same:
        return None, True
    best = max(same, key=lambda c: difflib.SequenceMatcher(None, c["xpath"], xpath).ratio())
    return str(best["xpath"]), True


def container_options(
    page: Any, prefix: str, tag: str, suffix: str
) -> tuple[list[dict[str, Any]], bool]:
    """The live options of a dynamicXpath, and whether the container had to be re-located."""
    opts = page.evaluate(CONTAINER_OPTIONS_JS, [prefix, tag, suffix, list(KEEP_ATTRS)])
    if opts:
        return list(opts), False
    # Re-locate: elements whose XPath ends in /tag[k]<suffix>, grouped by their prefix; the
    # group whose prefix reads most like the recorded one is the container.
    last = _STEP.search(suffix or f"/{tag}[1]")
    leaf = last.group(1) if last else tag
    cands = page.evaluate(CANDIDATES_JS, [leaf, list(KEEP_ATTRS)]) or []
    pat = re.compile(rf"^(.*)/{re.escape(tag)}\[\d+\]{re.escape(suffix)}$")
    groups: dict[str, list[dict[str, Any]]] = {}
    for c in cands:
        m = pat.match(c["xpath"])
        if m:
            groups.setdefault(m.group(1), []).append(c)
    if not groups:
        return [], True
    best = max(groups, key=lambda k: difflib.SequenceMatcher(None, k, prefix).ratio())
    return groups[best], True
