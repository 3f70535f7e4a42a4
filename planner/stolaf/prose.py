"""Prerequisite prose to the typed AST: KnowPlan, CatalogBrowse "clause-to-AST" (the
deterministic path). A clause it cannot type becomes an unsupported-policy leaf, which is never
treated as met; informational sentences (when offered, what it counts toward, what is
recommended) are not constraints and are dropped; "or equivalent"/"or placement" alternatives
the planner cannot use are dropped, which only narrows the plan."""

from __future__ import annotations

import re

from planner.documents import (
    AllOf,
    AnyOf,
    Consent,
    CourseRef,
    Expr,
    Standing,
)
from planner.stolaf.prose_atoms import (
    CONSENT,
    STANDING,
    ProseContext,
    course_refs,
    phrase_node,
    policy_kind,
)

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
# Open to the department's majors; anyone else with permission.
MAJORS_OR_CONSENT = re.compile(
    r"^(open to [a-z/ ]+ majors and other students|non-majors may register|permission of "
    r"(the )?instructor required for students not majoring) .*$",
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
        if ctx.own_id and ctx.own_id in course_refs(clause, ctx):
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
    refs = course_refs(clause, ctx)
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
        node = phrase_node(a, ctx)
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
