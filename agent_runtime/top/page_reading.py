"""Reading what a page shows: "Label: value" facts and result lists (titles with snippets).

The deterministic contract top works only from observations (WebRider Eq. 2: o_<=t), never from
the data behind a site; these readers turn the bounded page text into facts it can check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FACT = re.compile(r"^([A-Z][A-Za-z0-9 .&'/-]{0,40}): (.+)$")
_ITEM_NO = re.compile(r"Item no\.: ([A-Z]{2}-\d{4})")


def facts_in(text: str) -> dict[str, str]:
    """Every "Label: value" line (or ' · '-separated part) of a page's text."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        for part in line.split(" · "):
            m = _FACT.match(part.strip())
            if m and m.group(1) not in out:
                out[m.group(1)] = m.group(2).strip()
    return out


def item_no(text: str) -> str | None:
    m = _ITEM_NO.search(text)
    return m.group(1) if m else None


@dataclass
class Result:
    title: str
    source: str = ""
    facts: dict[str, str] = field(default_factory=dict)


def _is_snippet(line: str) -> bool:
    parts = [p.strip() for p in line.split(" · ")]
    return bool(parts) and all(_FACT.match(p) for p in parts)


def results_in(text: str) -> list[Result]:
    """Result entries of a listing or search page: a title line, maybe a source line, a snippet."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    out: list[Result] = []
    for i, line in enumerate(lines):
        if not _is_snippet(line) or i == 0:
            continue
        prev = lines[i - 1]
        if " · " in prev and not _is_snippet(prev) and i >= 2:
            out.append(Result(title=lines[i - 2], source=prev, facts=facts_in(line)))
        elif not _is_snippet(prev):
            out.append(Result(title=prev, facts=facts_in(line)))
    return out


def map_blocks(text: str, titles: list[str]) -> dict[str, dict[str, str]]:
    """Facts following each known title on a maps page (several places share one page)."""
    out: dict[str, dict[str, str]] = {}
    for t in titles:
        start = text.find(t)
        if start >= 0:
            out[t] = facts_in(text[start + len(t) : start + len(t) + 400].split("\n\n")[0])
    return out
