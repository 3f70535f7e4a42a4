"""PDF adapter: KnowPlan, "Deterministic-first parsing" (PDF adapter over pypdf text).

A bulletin's text is lines: a course starts at "ID Title (N Units)", and the lines after it are
the description, a "Prerequisite..." paragraph and a "Cross-listed:" line, wrapped anywhere.
Programs start at "Program: Name [kind]" with "Label: text" lines; GE at "Name (ID)".
"""

from __future__ import annotations

import re

from catalogbrowse.adapters.base import (
    COURSE_ID,
    CourseRec,
    Fact,
    GERec,
    PageYield,
    ProgramRec,
)

HEAD = re.compile(r"^([A-Z]{2,5} \d{3}[A-Z]?) (.+) \((\d+(?:\.\d+)?) Units?\)$")
PROG = re.compile(r"^Program: (.+) \[(\w+)\]$")
GE_HEAD = re.compile(r"^(.+) \(([A-Z]{1,5})\)$")
LABEL = re.compile(r"^([A-Z][\w ]{1,30}): (.+)$")


def _lines(text: str) -> list[tuple[int, int, str]]:
    out, pos = [], 0
    for line in re.split(r"(\n|\f)", text):
        if line not in ("\n", "\f") and line.strip():
            out.append((pos, pos + len(line), line))
        pos += len(line)
    return out


def _paragraphs(lines: list[tuple[int, int, str]], starts) -> list[Fact]:
    """Group wrapped lines into paragraphs: a new one begins where `starts(line)` is true."""
    out: list[list[tuple[int, int, str]]] = []
    for ln in lines:
        if not out or starts(ln[2]):
            out.append([ln])
        else:
            out[-1].append(ln)
    return [Fact(" ".join(x[2] for x in p), p[0][0], p[-1][1]) for p in out]


def adapt(url: str, text: str) -> PageYield:
    y = PageYield("pdf", url, text)
    lines = _lines(text)
    y.official = not (lines and "ARCHIVED" in lines[0][2].upper())
    heads = [i for i, ln in enumerate(lines) if HEAD.match(ln[2]) or PROG.match(ln[2])]
    for k, i in enumerate(heads):
        a, b, line = lines[i]
        body = lines[i + 1 : heads[k + 1] if k + 1 < len(heads) else len(lines)]
        m = HEAD.match(line)
        if m:
            s = a + line.index(m.group(2))
            rec = CourseRec(
                id=Fact(m.group(1), a, a + len(m.group(1))),
                title=Fact(m.group(2), s, s + len(m.group(2))),
                units=Fact(m.group(3), b - len(m.group(3)) - 7, b - 7),
                complete=True,
            )
            rec.units = Fact(
                m.group(3),
                a + line.rindex(m.group(3)),
                a + line.rindex(m.group(3)) + len(m.group(3)),
            )
            paras = _paragraphs(body, lambda t: bool(re.match(r"(Prereq|Cross-listed)", t)))
            for j, p in enumerate(paras):
                if p.value.startswith("Prereq"):
                    rec.prereq = p
                elif p.value.startswith("Cross-listed"):
                    rec.cross_listings = [c.group(0) for c in COURSE_ID.finditer(p.value)]
                elif j == 0:
                    rec.description = p
            y.courses.append(rec)
            continue
        m = PROG.match(line)
        s = a + len("Program: ")
        prog = ProgramRec(name=Fact(m.group(1), s, s + len(m.group(1))), kind=m.group(2))
        for p in _paragraphs(body, lambda t: bool(LABEL.match(t))):
            lm = LABEL.match(p.value)
            if lm:
                off = p.start + len(lm.group(1)) + 2
                prog.groups.append((lm.group(1), Fact(lm.group(2), off, p.end)))
        y.programs.append(prog)
    if not heads:
        for i, (a, _b, line) in enumerate(lines):
            m = GE_HEAD.match(line)
            if m and i + 1 < len(lines) and lines[i + 1][2].startswith("Complete"):
                rule_lines = [lines[i + 1]]
                for nxt in lines[i + 2 :]:
                    if GE_HEAD.match(nxt[2]):
                        break
                    rule_lines.append(nxt)
                rule = Fact(" ".join(x[2] for x in rule_lines), rule_lines[0][0], rule_lines[-1][1])
                k = re.search(r"Complete (\d+)", rule.value)
                y.ge.append(
                    GERec(
                        m.group(2),
                        Fact(m.group(1), a, a + len(m.group(1))),
                        rule,
                        [c.group(0) for c in COURSE_ID.finditer(rule.value)],
                        int(k.group(1)) if k else 1,
                    )
                )
    return y
