"""The agent's state: KnowPlan, "State and observability" (page graph, frontier, index ledgers,
entities, references) and "Atomic obligations" (the ledger whose weighted completion is F, Eq. 1).

`fold` is deterministic in the sequence of revealed pages alone, so a verifier can rebuild the
same state from the receipts and the snapshot without running the policy or any model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from catalogbrowse.adapters.base import Fact, GERec, Link, PageYield, ProgramRec

FIELDS = ("title", "units", "prereq")


@dataclass
class Located:
    """A fact and where it was read: page URL and span in that page's text."""

    value: str
    url: str
    start: int
    end: int


@dataclass
class CourseEntity:
    id: Located
    title: Located | None = None
    units: Located | None = None
    description: Located | None = None
    prereq: Located | None = None
    prereq_known: bool = False  # a complete record was read: no prerequisite means none
    cross_listings: list[str] = field(default_factory=list)


@dataclass
class Obligation:
    key: str
    kind: str  # entry | index | count | field | reference
    done: bool
    candidates: list[str] = field(default_factory=list)  # URLs whose opening could discharge it


def _loc(f: Fact | None, url: str) -> Located | None:
    return Located(f.value, url, f.start, f.end) if f is not None else None


def _refs(text: str) -> list[str]:
    """Course identifiers named in prose, with the department carried over bare numbers."""
    out, subj = [], None
    for m in re.finditer(r"\b([A-Z]{2,5} )?(\d{3}[A-Z]?)\b", text):
        if m.group(1):
            subj = m.group(1).strip()
        if subj:
            out.append(f"{subj} {m.group(2)}")
    return out


def _cursorless(url: str) -> str:
    return re.sub(r"([?&])(page|cursor)=\d+&?", r"\1", url).rstrip("?&")


class CatalogState:
    def __init__(self, root: str) -> None:
        self.root = root
        self.opened: list[str] = []
        self.yields: dict[str, PageYield] = {}
        self.failed: dict[str, str] = {}
        self.links: dict[str, Link] = {root: Link(root, "root", "section")}
        self.courses: dict[str, CourseEntity] = {}
        self.programs: dict[str, tuple[ProgramRec, str]] = {}
        self.ge: dict[str, tuple[GERec, str]] = {}
        self.entries: dict[str, set[str]] = {}  # entity key -> index pages listing it
        self.subjects: dict[str, str] = {}  # subject code -> first page with its records
        self.refs: set[str] = set()
        self.declared: dict[tuple[str, str], int] = {}

    # -- UpdatePageGraph + ParseObservation + NormalizeAndMerge (Algorithm 1, lines 13-16) ------
    def fold(self, y: PageYield) -> None:
        url = y.url
        self.opened.append(url)
        self.yields[url] = y
        if y.failed:
            self.failed[url] = y.failed
            return
        for link in y.links:
            prev = self.links.get(link.url)
            if prev is None or (
                prev.role in ("other", "archive") and link.role not in ("other", "archive")
            ):
                self.links[link.url] = link
        if not y.official:
            return
        for key in y.entries:
            self.entries.setdefault(key, set()).add(url)
        for k, n in y.declared.items():
            self.declared[(url, k)] = n
        subjects: dict[str, int] = {}
        for rec in y.courses:
            cid = rec.id.value
            subjects[cid.split()[0]] = subjects.get(cid.split()[0], 0) + 1
            ent = self.courses.get(cid)
            if ent is None:
                ent = self.courses[cid] = CourseEntity(_loc(rec.id, url))
            for name in ("title", "units", "description", "prereq"):
                if getattr(ent, name) is None and getattr(rec, name) is not None:
                    setattr(ent, name, _loc(getattr(rec, name), url))
            if rec.complete:
                ent.prereq_known = True
            if rec.cross_listings and not ent.cross_listings:
                ent.cross_listings = list(rec.cross_listings)
            self.refs.update(rec.cross_listings)
            if rec.prereq is not None:
                self.refs.update(_refs(rec.prereq.value))
        for code, n in subjects.items():
            if n >= 2:
                self.subjects.setdefault(code, url)
        for p in y.programs:
            self.programs.setdefault(p.id, (p, url))
            for _label, f in p.groups:
                self.refs.update(_refs(f.value))
        for g in y.ge:
            self.ge.setdefault(g.id, (g, url))
            self.refs.update(g.courses)

    # -- the obligation ledger (Eq. 1) ---------------------------------------------------------
    def obligations(self, inferred: dict[str, list[str]] | None = None) -> dict[str, Obligation]:
        """Every atomic obligation with its status and the unopened URLs that could discharge it.

        `inferred` maps an obligation key to URLs the inference step proposes (cursor and
        template guesses); they count as candidates like discovered links.
        """
        opened = set(self.opened)
        inferred = inferred or {}
        by_entity: dict[str, list[str]] = {}
        for link in self.links.values():
            if link.entity and link.url not in opened:
                by_entity.setdefault(link.entity, []).append(link.url)
        out: dict[str, Obligation] = {}

        def add(key: str, kind: str, done: bool, cands: list[str]) -> None:
            extra = [u for u in inferred.get(key, []) if u not in opened]
            out[key] = Obligation(key, kind, done, [] if done else sorted(set(cands + extra)))

        for link in self.links.values():
            if link.role in ("section", "cursor"):
                add(f"index:{link.url}", "index", link.url in opened, [link.url])
        for key in self.entries:
            kind, _, ident = key.partition(":")
            if kind == "course":
                done = ident in self.courses
            elif kind == "program":
                done = ident in self.programs
            else:
                done = ident in self.subjects
            add(f"entry:{key}", "entry", done, by_entity.get(key, []))
        for cid, ent in self.courses.items():
            for name in FIELDS:
                done = getattr(ent, name) is not None or (name == "prereq" and ent.prereq_known)
                add(f"field:{cid}:{name}", "field", done, by_entity.get(f"course:{cid}", []))
        for cid in sorted(self.refs):
            add(f"ref:{cid}", "reference", cid in self.courses, by_entity.get(f"course:{cid}", []))
        for (url, what), n in self.declared.items():
            seen = self._seen(url, what)
            add(f"count:{url}:{what}", "count", seen >= n, [])
        return out

    def _seen(self, url: str, what: str) -> int:
        if what == "pages":
            base = _cursorless(url)
            return sum(1 for u in self.opened if _cursorless(u) == base and u not in self.failed)
        if what == "subjects":
            return len(self.subjects)
        if what == "programs":
            return len(self.programs)
        y = self.yields[url]
        subj = {c.id.value.split()[0] for c in y.courses}
        return sum(1 for c in self.courses if not subj or c.split()[0] in subj)

    def summary(self) -> dict[str, int]:
        return {
            "pages": len(self.opened),
            "entities": len(self.courses) + len(self.programs) + len(self.ge),
            "references": len(self.refs),
        }
