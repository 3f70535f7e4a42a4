"""Prerequisite prose to the typed AST: KnowPlan, CatalogBrowse "clause-to-AST" (the
deterministic path). A clause it cannot type becomes an unsupported-policy leaf, which is never
treated as met; informational sentences (when offered, what it counts toward, what is
recommended) are not constraints and are dropped; "or equivalent"/"or placement" alternatives
the planner cannot use are dropped, which only narrows the plan."""

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
INFO = re.compile(
    r"^(offered|also offered|counts? towards?|may (also )?count|depending on|may be repeated|"
    r"may be offered|may be taken|for additional|click on|materials? fee|see |note|"
    r"students (planning|interested|who|considering)|this course|open to first-year|"
    r"\(?for students through|.*\b(strongly )?(recommended|preferred|suggested|encouraged)\b|"
    # Advice inside a sentence: what a course counts toward, what serves as an introduction.
    r".*\bcounts? towards?\b|.*\bprovides? an introduction\b|.*\bcan serve as\b|"
    r".*\bshould not take\b|enrollment limited)",
    re.I,
)
DROP_ALT = re.compile(
    r"^(the )?(its )?(equivalent( preparation| experience)?|similar course.*|placement.*|"
    r".*\bplacement( recommendation| test| exam| by test)?|audition.*|"
    r"\d or \d on (the )?ap .*|ap .*|.*\bproficiency\b.*)$",
    re.I,
)
CONSENT = re.compile(
    r"^(the )?(written )?(permission|consent|approval) of (the |a |an )?"
    r"[a-z .'/]*\b(instructor|chair|director|department|coordinator)s?\b.*$"
    r"|^instructor'?s? (permission|consent|approval)$"
    r"|^(determined by (the )?individual instructor|vary)$",
    re.I,
)
# Open to the department's majors; anyone else with permission.
MAJORS_OR_CONSENT = re.compile(
    r"^(open to [a-z/ ]+ majors and other students|non-majors may register|permission of "
    r"(the )?instructor required for students not majoring) .*$",
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
NORMALIZE = [
    (r"\b(previous|prior) or concurrent\b", "concurrent"),
    (r"\bcompletion of or concurrent\b", "concurrent"),
    (r"\bconcurrent (registration|enrollment) \(or previous completion of\)", r"concurrent \1 in"),
    (r"\s+(is|are) required\b", ""),
    (r"\bjunior or senior (standing|status)", r"junior \1"),
    (r"\b(sophomore|junior|senior) (standing|status) or higher", r"\1 \2"),
    (r"\s*\(or [^)]*\)", ""),  # "(or placement into ...)": an alternative the planner drops
    (r"\s*\(at the discretion of [^)]*\)", ""),
    (r"\b4 or 5 on (the )?AP\b", "AP score 4+ on"),
]
DROPPED = AllOf(items=[], label="dropped alternative")
_REF = re.compile(r"\b(?P<dept>[A-Z][A-Za-z]{1,11}(?:/[A-Z]{2,6})?)\s*(?P<num>\d{3})[A-Z]?\b")
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


def parse_prereq(text: str, ctx: ProseContext) -> Expr | None:
    """Typed AST of a prerequisite string (None when it states no constraint)."""
    t = re.sub(r"^\s*(prerequisites?|prereq|usite)\s*:?\s*", "", text.strip(), flags=re.I)
    t = re.sub(r"\b([A-Z]{2,6})(\d{3})\b", r"\1 \2", t)
    t = re.sub(r"(\d{3})(or|and)\b", r"\1 \2", t)
    t = re.sub(r"\s+", " ", t).strip().rstrip(".")
    for pat, rep in NORMALIZE:
        t = re.sub(pat, rep, t, flags=re.I)
    parts: list[Expr] = []
    for clause in re.split(r";|\.\s+(?=[A-Z(]|or |and )", t):
        clause = clause.strip().strip(".").strip()
        if not clause or INFO.match(clause) or _exclusion(clause, ctx):
            continue
        if ctx.own_id and ctx.own_id in _refs(clause, ctx):
            continue
        alt = re.match(r"^or\s+", clause, re.I)
        clause = re.sub(r"^(or|and)\s+", "", clause, flags=re.I)
        ctx.sentence_kind = policy_kind(clause)
        if MAJORS_OR_CONSENT.match(clause):
            parts.append(AnyOf(items=[ctx.unsupported(clause, "restriction"), Consent()]))
            continue
        node = _first_year_consent(clause) or _parse(clause, ctx)
        node = node if node is not None else ctx.policy(clause)
        if alt and parts:  # "...; or permission of instructor": an alternative to the last one
            parts[-1] = AnyOf(items=[parts[-1], node])
        else:
            parts.append(node)
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else AllOf(items=parts)


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


def _exclusion(clause: str, ctx: ProseContext) -> bool:
    """'Not open to students who have completed X', 'cannot be taken ... after credit in X',
    'credit for either X or Y, but not both': recorded as exclusions (at most one taken)."""
    low = clause.lower()
    if not (
        "not open to students who have" in low
        or "cannot be taken" in low
        or "but not both" in low
        or "may not be taken" in low
    ):
        return False
    refs = _refs(clause, ctx)
    if not refs:
        return False
    ctx.exclusions.extend(refs)
    return True


def _first_year_consent(clause: str) -> Expr | None:
    if re.fullmatch(
        r"(permission|consent) of (the )?instructor required for first-year students", clause, re.I
    ):
        return AnyOf(
            items=[Standing(min_units=STANDING["sophomore"], label="sophomore standing"), Consent()]
        )
    return None


def _refs(s: str, ctx: ProseContext) -> list[str]:
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


def _split(s: str, pattern: str) -> list[str]:
    """Split on a separator outside parentheses."""
    out, depth, last = [], 0, 0
    for m in re.finditer(rf"\(|\)|{pattern}", s, re.I):
        tok = m.group(0)
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(s[last : m.start()])
            last = m.end()
    out.append(s[last:])
    return [p.strip() for p in out if p.strip()]


def _parse(s: str, ctx: ProseContext) -> Expr | None:
    """OR of ', or'-parts; each an AND of ', and' / 'and' / 'plus' parts; each an OR of 'or'
    alternatives. In an OR context a comma list without 'and' is an OR list too. A part that
    cannot be typed beside parts that can becomes its own unsupported leaf, so the typed parts
    still hold (an alternative such as consent stays usable)."""
    top = _split(s, r",\s*or\s+")
    if len(top) > 1:
        return _partial(top, [_and(p, ctx, " and " not in p.lower()) for p in top], ctx, _any)
    out = _and(s, ctx, comma_or=False)
    return None if out is DROPPED else out


def _partial(texts: list[str], nodes: list[Expr | None], ctx: ProseContext, join) -> Expr | None:
    failed = [n is None or n is DROPPED for n in nodes]
    if all(failed) and not all(n is DROPPED for n in nodes):
        return None
    if any(failed) and join is _all:
        nodes = [ctx.policy(t) if f else n for t, n, f in zip(texts, nodes, failed, strict=True)]
    elif any(n is None for n in nodes):
        nodes = [ctx.policy(t) if n is None else n for t, n in zip(texts, nodes, strict=True)]
    return join(nodes)


def _all(items: list[Expr]) -> Expr:
    return items[0] if len(items) == 1 else AllOf(items=items)


def _and(s: str, ctx: ProseContext, comma_or: bool) -> Expr | None:
    if CONSENT.match(s.strip()):
        return Consent()
    sep = r",?\s+and(?!/)\s+(?:either\s+|one of\s+)?|,?\s+plus\s+"
    if not comma_or:
        sep += r"|,\s+(?=(?:[A-Z][A-Za-z/]{1,11}\s*\d{3}|completion|previous|prior|concurrent|"
        sep += r"junior|senior|sophomore|at least))"
    parts = _split(s, sep)
    nodes = [_or(p, ctx, comma_or) for p in parts]
    if len(parts) == 1:
        return nodes[0]
    return _partial(parts, nodes, ctx, _all)


def _or(s: str, ctx: ProseContext, comma_or: bool) -> Expr | None:
    s = re.sub(r"^(either|one of|both|completion of|previous completion of)\s+", "", s, flags=re.I)
    sep = r"\s+and/or\s+|,?\s+or\s+" + (r"|,\s+" if comma_or else "")
    alts: list[Expr | None] = []
    texts: list[str] = []
    dropped = False
    dept: str | None = None
    for a in _split(s, sep):
        a = a.strip().strip(",").strip()
        if DROP_ALT.match(a):
            dropped = True
            continue
        if re.fullmatch(r"\d{3}[A-Z]?", a) and dept:
            alts.append(CourseRef(course=f"{dept} {a[:3]}"))
            texts.append(a)
            continue
        node = _atom(a, ctx)
        if isinstance(node, CourseRef):
            dept = node.course.rsplit(" ", 1)[0]
        alts.append(node)
        texts.append(a)
    if not alts:
        return DROPPED if dropped else None
    if len(alts) == 1:
        return alts[0]
    return _partial(texts, alts, ctx, _any)


def _any(alts: list[Expr | None]) -> Expr | None:
    """OR of alternatives; dropped ones ('or equivalent') leave the rest, all dropped fails."""
    if any(a is None for a in alts):
        return None
    alts = [a for a in alts if a is not DROPPED]
    if not alts:
        return None
    return alts[0] if len(alts) == 1 else AnyOf(items=alts)


def _atom(a: str, ctx: ProseContext) -> Expr | None:
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
        refs = _refs(m.group("rest"), ctx)
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
        refs = _refs(f"{m.group(1)} {m.group(2)}", ctx)
        return AllOf(items=[CourseRef(course=r) for r in refs]) if len(refs) == 2 else None
    m = re.fullmatch(r"([A-Z][A-Za-z/]{1,11} \d{3}) \(([^)]*)\)", a)
    if m:  # "MATH 282 (MATH 244 or MATH 252)": the course or its named successors
        refs = _refs(a, ctx)
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
