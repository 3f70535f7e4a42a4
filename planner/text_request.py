"""Requests in words: KnowPlan, DegreeMap "Finite profile parsing". Words map to program and
course identifiers and structured fields, and every reading is reported. Nothing is guessed:
a name that matches no program stays unresolved, and a clarifying question is asked only when
the words fit more than one program."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from planner.hypergraph import Hypergraph
from planner.profile import Request

_COURSE_RE = re.compile(r"\b([A-Z]{2,6}(?:/[A-Z]{2,6})?)[ -]?(\d{2,4}[A-Z]?)\b")
_NUM = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
_STOP = r"(?=\s*(?:[,.;!]|$|\band\b|\bwith\b|\bat most\b|\bstarting\b|\bstart\b|\bi\b|\bbut\b))"
_LIKE = re.compile(
    r"\b(?:i (?:really )?(?:like|love|enjoy)|interested in|interests? (?:in|are|:)|"
    r"i'?m into)\s+([^.;!]+)",
    re.I,
)
_AVOID = re.compile(r"\b(?:avoid|dislike|not interested in|i hate)\s+([^.;!]+)", re.I)
_PROGRAM = re.compile(
    rf"\b(major|majoring|concentration|concentrating|program|degree)\s+(?:in|on)\s+"
    rf"(?:the\s+)?([a-z][a-z &/-]*?){_STOP}",
    re.I,
)


@dataclass
class Reading:
    """What the words were read as: the request, each (words, meaning), and a question."""

    request: Request
    readings: list[tuple[str, str]] = field(default_factory=list)
    question: str | None = None


def _num(tok: str) -> int | None:
    return int(tok) if tok.isdigit() else _NUM.get(tok.lower())


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


def _split_list(s: str) -> list[str]:
    return [w.strip() for w in re.split(r",|\band\b|\bor\b", s) if w.strip()]


def _programs_for(phrase: str, graph: Hypergraph, kinds: set[str]) -> list[str]:
    """Programs a phrase names: an exact name or id first, else every name containing it."""
    want = _norm(phrase)
    progs = [p for p in graph.programs.values() if p.kind in kinds]
    exact = [p.id for p in progs if want in (_norm(p.name), _norm(p.id))]
    if exact:
        return exact
    words = want.split()
    return sorted(
        p.id
        for p in progs
        if words and all(any(n.startswith(w) for n in _norm(p.name).split()) for w in words)
    )


def read_text(text: str, graph: Hypergraph) -> Reading:
    req: dict = {"completed": [], "unresolved": [], "interests": [], "avoid": []}
    out = Reading(Request())
    low = text.lower()
    rest = low
    # Liked and avoided subjects first: "I like statistics" is an interest, never a program.
    for pat, key in ((_AVOID, "avoid"), (_LIKE, "interests")):
        for m in pat.finditer(low):
            items = _split_list(
                re.split(r"\b(?:at most|starting|i want|i'd like)\b", m.group(1))[0]
            )
            req[key] += items
            for it in items:
                out.readings.append((it, "an interest" if key == "interests" else "to avoid"))
            rest = rest.replace(m.group(0), " ")
    for m in _PROGRAM.finditer(rest):
        word, phrase = m.group(1).lower(), m.group(2).strip()
        conc = word.startswith("concentrat")
        kinds = {"concentration", "track"} if conc else {"major"}
        hits = _programs_for(phrase, graph, kinds)
        if not hits and not conc:  # "program in X" may name any kind of program
            hits = _programs_for(phrase, graph, {"degree", "concentration", "minor"})
        if conc and len(hits) == 1:
            req.setdefault("tracks", []).append(hits[0])
            out.readings.append((phrase, f"concentration {hits[0]}"))
        elif len(hits) == 1 and "program" not in req:
            req["program"] = hits[0]
            kind = graph.programs[hits[0]].kind
            out.readings.append((phrase, f"program {hits[0]} ({kind})"))
        elif len(hits) > 1:
            names = ", ".join(f"{graph.programs[h].name} ({h})" for h in hits)
            out.question = f"Which program do you mean by '{phrase}': {names}?"
            req["unresolved"].append(f"program:ambiguous:{phrase}")
        else:
            req["unresolved"].append(f"program:{phrase}")
        rest = rest.replace(m.group(0), " ")
    if "program" not in req and not any(u.startswith("program:") for u in req["unresolved"]):
        # No "major in ...": a program named outright ("the Computer Science major").
        named = [
            p.id
            for p in graph.programs.values()
            if p.kind != "track"
            and (
                re.search(rf"\b{re.escape(p.id.lower())}\b", rest)
                or re.search(rf"\b{re.escape(_norm(p.name))}\b", _norm(rest))
            )
        ]
        if len(named) == 1:
            req["program"] = named[0]
            out.readings.append((graph.programs[named[0]].name.lower(), f"program {named[0]}"))
        elif len(named) > 1:
            names = ", ".join(f"{graph.programs[h].name} ({h})" for h in named)
            out.question = f"Which program do you want to plan: {names}?"
            req["unresolved"].append("program:ambiguous:" + ",".join(named))
        else:
            req["unresolved"].append("program:unspecified")
    m = re.search(r"(?:completed|taken|took|done with|finished)\s*:?\s*(.+?)(?:\.|;|$)", text, re.I)
    if m:
        for dept, num in _COURSE_RE.findall(m.group(1).upper()):
            cid = f"{dept} {num}"
            if cid in graph.courses:
                req["completed"].append(cid)
                out.readings.append((cid, "completed"))
            else:
                req["unresolved"].append(f"course:{cid}")
    if re.search(r"\btransfer", low):
        req["transfer"] = True
        out.readings.append(("transfer", "transfer student"))
    m = re.search(r"\b(\w+)\s+(?:more\s+|remaining\s+)?(terms|semesters|years)\b", low)
    if m and _num(m.group(1)):
        n = _num(m.group(1))
        terms = n * max(len(graph.term_cycle), 1) if m.group(2) == "years" else n
        req["horizon"] = terms
        out.readings.append((m.group(0), f"horizon {terms} terms"))
    m = re.search(
        r"(?:at most|max(?:imum)?|up to|no more than)\s+(\d+(?:\.\d+)?)\s+(?:units|credits)"
        r"(?:\s+(?:in|during|for)\s+(?:the\s+)?(fall|spring|interim|summer))?",
        low,
    )
    if m:
        if m.group(2):
            req["max_units_by_season"] = {m.group(2): float(m.group(1))}
            out.readings.append((m.group(0), f"at most {m.group(1)} units in {m.group(2)}"))
        else:
            req["max_units_per_term"] = float(m.group(1))
            out.readings.append((m.group(0), f"at most {m.group(1)} units per term"))
    for level in ("low", "medium", "high"):
        if re.search(rf"\b{level} risk", low):
            req["risk_tolerance"] = level
            out.readings.append((f"{level} risk", f"risk tolerance {level}"))
    m = re.search(r"\bstart(?:ing)?\s+(?:in\s+)?((?:fall|spring|interim|summer)(?:\s+\d{4})?)", low)
    if m:
        if re.search(r"\d{4}", m.group(1)):
            req["start_term"] = m.group(1)
            out.readings.append((m.group(0), f"start term {m.group(1)}"))
        else:
            req["start_season"] = m.group(1)
            out.readings.append((m.group(0), f"start season {m.group(1)}"))
    if re.search(r"\b(no|without)\s+(ge|gen ed|general education)\b", low):
        req["ge_framework"] = "none"
        out.readings.append(("no general education", "plan the program only"))
    if re.search(r"\b(placement|placed)\b|high school", low):
        req["acknowledged"] = ["kind:background"]
        out.readings.append(
            ("placement", "you have the placements and high-school background courses ask for")
        )
    out.request = Request.model_validate(req)
    return out


def parse_text(text: str, graph: Hypergraph) -> Request:
    return read_text(text, graph).request
