"""Whole-segment prose forms the boolean grammar does not cover: KnowPlan, "Deterministic-first
parsing" (the rules that take catalog boilerplate before any model is asked).

- A sentence that states no requirement (offering schedules, what a course counts toward, fees,
  grading, repeat rules, anti-requisites): no node, and not an unresolved span either.
- An opening restricted to a class and a major ("open to junior nursing majors only").
- A count of courses in an area named in words ("one previous course in Asian studies", "two
  semesters of voice lessons"), with an optional trailing consent alternative.

The patterns live in phrases.yaml; each matches a whole segment, so none can swallow a course
identifier the grammar would have typed.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, get_args

import yaml

from planner.clause_ast import (
    AllOfNode,
    AnyOfNode,
    ConsentNode,
    CoursesNode,
    ProgramNode,
    StandingLevel,
    StandingNode,
)

# Count words of catalog prose; the grammar's COUNT token reads "two" to "six" with the same map.
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_LEVELS = list(get_args(StandingLevel))  # lowest first


@functools.cache
def _patterns() -> dict[str, Any]:
    raw = yaml.safe_load(Path(__file__).with_name("phrases.yaml").read_text())
    return {
        "no_requirement": re.compile(
            r"^(?:" + "|".join(f"(?:{p})" for p in raw["no_requirement"]) + r")", re.I
        ),
        "restricted": re.compile(raw["restricted"], re.I),
        "courses": re.compile(raw["courses"], re.I),
        "consent_tail": re.compile(raw["consent_tail"], re.I),
    }


def states_no_requirement(segment: str) -> bool:
    """A sentence about offering, credit, fees or grading: it adds no prerequisite."""
    return bool(_patterns()["no_requirement"].match(segment.strip()))


def restricted_opening(segment: str) -> Any | None:
    """ "Open to junior or senior nursing majors only" -> all_of(standing junior, program)."""
    m = _patterns()["restricted"].match(segment.strip())
    if not m:
        return None
    program = ProgramNode(text=m.group("program").strip())
    levels = [w.lower() for w in re.findall(r"\w+", m.group("levels") or "")]
    levels = [w for w in levels if w in _LEVELS]
    if not levels:
        return program
    return AllOfNode(items=[StandingNode(level=min(levels, key=_LEVELS.index)), program])


def courses_in_area(segment: str) -> Any | None:
    """ "One previous course in Asian studies" -> courses(1, "Asian studies"); a trailing
    "or permission of the instructor" makes it the first of two alternatives."""
    text = segment.strip()
    consent = None
    tail = _patterns()["consent_tail"].search(text)
    if tail:
        consent = ConsentNode(of="instructor" if "instructor" in tail.group(0).lower() else
                              "department")  # fmt: skip
        text = text[: tail.start()].rstrip(" ,;")
    m = _patterns()["courses"].match(text)
    if not m:
        return None
    n = m.group("n").lower()
    count = NUMBER_WORDS.get(n) or int(n)
    area = (m.group("area") or m.group("area2") or "").strip(" ,")
    area = re.sub(r"^courses? (in|from) |\s+courses?$", "", area)
    if not area:
        return None
    node = CoursesNode(n=count, area=area)
    return AnyOfNode(items=[node, consent]) if consent else node
