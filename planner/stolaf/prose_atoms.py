"""One prerequisite phrase to a typed node: KnowPlan, CatalogBrowse "clause-to-AST" (the
deterministic path). A course (with department carry-over and aliases), a range, a paired
lecture/lab, standing, consent, a corequisite, a GE code, "N courses in DEPT [at level X]";
None when the phrase is none of these (the caller records it as an unsupported policy)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from planner.documents import (
    AllOf,
    AnyOf,
    Consent,
    Coreq,
    CourseRef,
    Expr,
    Pool,
    PoolSpec,
    Standing,
)
from planner.stolaf.aliases import Departments

STANDING = {"sophomore": 7.0, "junior": 14.0, "senior": 21.0}


NUMS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a": 1, "an": 1}


CONSENT = re.compile(
    r"^(the )?(written )?(permission|consent|approval) of (the |a |an )?"
    r"[a-z .'/]*\b(instructor|chair|director|department|coordinator)s?\b.*$"
    r"|^instructor'?s? (permission|consent|approval)$"
    r"|^(determined by (the )?individual instructor|vary)$",
    re.I,
)


STAND = re.compile(r"^(at least )?(sophomore|junior|senior)( or senior)? (standing|status)$", re.I)


COREQ = re.compile(
    r"^(previous or |prior or )?concurrent (registration|enrollment) in "
    r"(\(or previous completion of\) )?(?P<rest>.+)$",
    re.I,
)


COUNT = re.compile(
    r"^(at least |a minimum of |minimum of )?(?P<n>one|two|three|four|five|six|\d) "
    r"(additional |previous |other )?(?P<lvl>level (I{1,3}|[123]) )?"
    r"(?P<word>[a-z/]+ )?courses? (in|from) (the )?(?P<dept>[a-z/ ]+?)"
    r"( at level (?P<lvl2>I{1,3}))?$"
    r"|^(at least |a minimum of |minimum of )?(?P<n2>one|two|three|four|a|an|\d) "
    r"(?P<dept2>[a-z/]+) courses?( at level (?P<lvl3>I{1,3}))?$",
    re.I,
)


NUMBERED = re.compile(
    r"^(at least |a minimum of |minimum of )?(?P<n>one|two|three|\d) "
    r"(?P<base>\d)(?P<tens>\d)0-level courses?$",
    re.I,
)


ROMAN = {"I": 100, "II": 200, "III": 300, "1": 100, "2": 200, "3": 300}


@dataclass
class ProseContext:
    """What a clause may refer to: departments, known course ids, GE code pools."""

    deps: Departments
    known: set[str]
    ge_pools: dict[str, list[str]]
    own_dept: str
    # Records an unsupported-policy clause of a kind ("background", "restriction", ""),
    # returning the leaf that points at it.
    unsupported: Callable[[str, str], Expr]
    aliases: list[str] = field(default_factory=list)
    exclusions: list[str] = field(default_factory=list)
    sentence_kind: str = ""  # a part of a restriction sentence is part of the restriction
    own_id: str = ""  # a clause naming the course itself as its own prerequisite is not one

    def policy(self, text: str) -> Expr:
        return self.unsupported(text, policy_kind(text) or self.sentence_kind)


BACKGROUND = re.compile(
    r"placement|high school|proficiency|\bAP\b|experience|able to swim|semesters? of|"
    r"terms? of|grade of",
    re.I,
)


RESTRICTION = re.compile(
    r"\bmajors?\b|\bonly\b|accepted into|acceptance into|application|admission", re.I
)


def policy_kind(clause: str) -> str:
    """background: what the student brings (placement, high-school work), which the student
    can acknowledge; restriction: who may enroll; "": anything else."""
    if BACKGROUND.search(clause):
        return "background"
    if RESTRICTION.search(clause):
        return "restriction"
    return ""


def course_refs(s: str, ctx: ProseContext) -> list[str]:
    """Course ids in a string, with department carry-over ('CSCI 121 or 125')."""
    out, dept = [], None
    for m in re.finditer(
        r"\b([A-Z][A-Za-z]{1,11}(?:/[A-Z]{2,6})?)\s*(\d{3})[A-Z]?\b|\b(\d{3})\b", s
    ):
        if m.group(1):
            d = _dept(m.group(1), ctx)
            if d is None:
                continue
            dept = d
            out.append(f"{dept} {m.group(2)}")
        elif dept:
            out.append(f"{dept} {m.group(3)}")
    return out


def _dept(word: str, ctx: ProseContext) -> str | None:
    """A department as written in prose ('CSCI', 'CH/BI', 'Economics') -> code in course ids."""
    if "/" in word:
        return word.upper() if ctx.deps.resolve(word) else None
    hit = ctx.deps.code(word)
    if hit is None:
        return None
    if hit[1]:
        ctx.aliases.append(hit[1])
    return hit[0]


def phrase_node(a: str, ctx: ProseContext) -> Expr | None:
    a = re.sub(r"^(completion of|previous completion of|the)\s+", "", a.strip(), flags=re.I)
    if a.startswith("(") and a.endswith(")"):
        a = a[1:-1].strip()
    if CONSENT.match(a):
        return Consent()
    m = STAND.match(a)
    if m:
        return Standing(min_units=STANDING[m.group(2).lower()], label=m.group(0))
    m = COREQ.match(a)
    if m:
        refs = course_refs(m.group("rest"), ctx)
        ge = _ge(m.group("rest"), ctx)
        if len(refs) == 1:
            return Coreq(course=refs[0])
        # "prior or concurrent enrollment in FYW": required strictly before (stricter, safe).
        return ge
    ge = _ge(a, ctx)
    if ge is not None:
        return ge
    m = re.fullmatch(r"([A-Z][A-Za-z/]{1,11}) (\d{3})\s*-\s*(\d{3})", a)
    if m:
        d = _dept(m.group(1), ctx)
        lo, hi = int(m.group(2)), int(m.group(3))
        ids = sorted(c for c in ctx.known if d and c.split(" ")[0] == d and lo <= int(c[-3:]) <= hi)
        return AnyOf(items=[CourseRef(course=c) for c in ids]) if ids else None
    m = re.fullmatch(r"([A-Z][A-Za-z/]{1,11} \d{3})\s*/\s*((?:[A-Z][A-Za-z/]{1,11} )?\d{3})", a)
    if m:  # "CHEM 121/CHEM 123": a course with its paired course (lecture/lab), both needed
        refs = course_refs(f"{m.group(1)} {m.group(2)}", ctx)
        return AllOf(items=[CourseRef(course=r) for r in refs]) if len(refs) == 2 else None
    m = re.fullmatch(r"([A-Z][A-Za-z/]{1,11} \d{3}) \(([^)]*)\)", a)
    if m:  # "MATH 282 (MATH 244 or MATH 252)": the course or its named successors
        refs = course_refs(a, ctx)
        return AnyOf(items=[CourseRef(course=r) for r in refs]) if refs else None
    m = COUNT.match(a)
    if m:
        return _count(m, ctx)
    m = NUMBERED.match(a)
    if m:  # "at least one 270-level course": own department, numbers 270-279
        lo = int(m.group("base") + m.group("tens") + "0")
        ids = sorted(
            c for c in ctx.known if c.split(" ")[0] == ctx.own_dept and lo <= int(c[-3:]) <= lo + 9
        )
        n = NUMS.get(m.group("n").lower()) or int(m.group("n"))
        return Pool(min_courses=n, pool=PoolSpec(courses=ids), label=m.group(0)) if ids else None
    m = re.fullmatch(r"([A-Z][A-Za-z/]{1,11})\s*(\d{3})[A-Z]?", a)
    if m:
        d = _dept(m.group(1), ctx)
        return CourseRef(course=f"{d} {m.group(2)}") if d else None
    return None


def _ge(a: str, ctx: ProseContext) -> Expr | None:
    m = re.fullmatch(
        r"(?:completion of )?(?:the )?([A-Z]{2,4})(?:[-:]([A-Z]))?"
        r"(?: general education)?(?: requirement)?",
        a.strip(),
        re.I,
    )
    if not m:
        return None
    code = m.group(1).upper() + (f"-{m.group(2).upper()}" if m.group(2) else "")
    if code in ctx.ge_pools:
        courses = ctx.ge_pools[code]
    else:  # a family such as FOL: any FOL-x course
        courses = sorted(
            {c for k, cs in ctx.ge_pools.items() if k.startswith(code + "-") for c in cs}
        )
    if not courses:
        return None
    return Pool(min_courses=1, pool=PoolSpec(courses=courses), label=f"a {code} course")


def _count(m: re.Match[str], ctx: ProseContext) -> Expr | None:
    n_word = m.group("n") or m.group("n2")
    n = NUMS.get(n_word.lower()) or (int(n_word) if n_word.isdigit() else 0)
    where = (m.group("dept") or m.group("dept2") or "").strip().lower()
    if where in ("department", "the department", "area of study"):
        dept = ctx.own_dept if where != "area of study" else None
    else:
        hit = ctx.deps.code(where)
        dept = hit[0] if hit else None
        if hit and hit[1]:
            ctx.aliases.append(hit[1])
    word = (m.group("word") or "").strip().lower()
    if word and dept is None:
        hit = ctx.deps.code(word)
        dept = hit[0] if hit else None
    if dept is None or not n:
        return None
    lvl = m.group("lvl") or m.group("lvl2") or m.group("lvl3")
    spec = PoolSpec(departments=[dept])
    if lvl:
        key = lvl.split()[-1] if lvl.lower().startswith("level") else lvl
        base = ROMAN.get(key.strip().upper())
        if base is None:
            return None
        spec = PoolSpec(departments=[dept], min_level=base, max_level=base)
    return Pool(min_courses=n, pool=spec, label=m.group(0))
