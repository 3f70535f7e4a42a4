"""What the contract top remembers about a candidate, and how it checks shown values.

Checks mirror the contract's Inspect semantics (WebRider Table 9, inspectable hard constraints),
applied to values the browser showed; nothing here reads a site's data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from contracts.intent import Inspect

_NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def number(text: str) -> float | None:
    m = _NUM.search(text or "")
    return float(m.group(0).replace(",", "")) if m else None


def check(ins: Inspect, shown: str) -> bool:
    if ins.op == "eq":
        return shown.strip().casefold() == str(ins.value).strip().casefold()
    if ins.op == "contains":
        return str(ins.value).casefold() in shown.casefold()
    n = number(shown)
    if n is None or ins.value is None:
        return False
    return n <= float(ins.value) if ins.op == "max" else n >= float(ins.value)


def overlap(a: str, b: str) -> int:
    """Shared content words (plurals folded): which category link fits a request."""
    wa = {w.rstrip("s") for w in re.findall(r"[a-z]{3,}", a.lower())}
    wb = {w.rstrip("s") for w in re.findall(r"[a-z]{3,}", b.lower())}
    return len(wa & wb)


def shares_entity(related: dict[str, str], item: dict[str, str]) -> bool:
    """Does a related page name the same entity as an item page (e.g. its seller by name)?"""
    names = {v for v in item.values() if len(re.findall(r"[A-Za-z]", v)) >= 4 and not number(v)}
    return any(v in names for v in related.values())


@dataclass
class Candidate:
    id: str
    title: str
    pages: dict[str, dict[str, str]] = field(default_factory=dict)
    status: str = "open"  # open | accepted | rejected
    why: str = ""
