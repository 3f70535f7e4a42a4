"""Finalize: KnowPlan, Algorithm 1 line 19 (the three provenance-linked JSON documents).

Courses need an id, title and units to be emitted (the schema requires units > 0); a course
missing either is listed as unresolved instead. Prerequisite and requirement prose is typed by
the grammar first and the clause model only on spans the grammar left untyped. Each fact is also
listed in facts.jsonl with the page and span it was read from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from catalogbrowse.prereq import parse_prereq
from catalogbrowse.prereq.parser import flatten
from catalogbrowse.state import CatalogState, Located
from planner.clause_ast import AllOfNode, AnyOfNode, ChooseNNode, Clause, UnsupportedNode, to_expr
from planner.documents import (
    AllOf,
    CatalogDocs,
    Course,
    CoursesDoc,
    GECategory,
    GEDoc,
    GEFramework,
    Program,
    ProgramsDoc,
    Provenance,
    Source,
)

STANDING_UNITS = {"sophomore": 30.0, "junior": 60.0, "senior": 90.0}
# span -> validated clause (its prerequisite None: the span states no requirement), or None when
# the span stays unresolved; supplied by the agent when the model fallback is on.
Fallback = Callable[[str], Clause | None]


@dataclass
class Emitted:
    docs: CatalogDocs
    facts: list[dict] = field(default_factory=list)
    unresolved: list[dict] = field(default_factory=list)
    clauses: dict[str, dict] = field(default_factory=dict)  # course id -> parse record


def _prov(loc: Located) -> Provenance:
    return Provenance(source=loc.url, start=loc.start, end=loc.end)


def _replace_unsupported(node, fixed: dict[str, object]):
    """`node` with each typed span's unsupported leaf replaced by its node, or dropped when the
    span states no requirement (None); a group left with one item is that item, with none None.
    (A span is a whole segment or a hole inside one: prereq/holes.py.)"""
    if isinstance(node, UnsupportedNode) and node.text in fixed:
        return fixed[node.text]
    if isinstance(node, AllOfNode | AnyOfNode | ChooseNNode):
        items = [x for x in (_replace_unsupported(i, fixed) for i in node.items) if x is not None]
        if not items:
            return None
        if len(items) == 1:
            return items[0]
        if isinstance(node, ChooseNNode) and node.n >= len(items):
            return AllOfNode(items=items)
        return node.model_copy(update={"items": items})
    return node


def type_prose(
    text: str, fallback: Fallback | None, subjects: Mapping[str, str] | None = None
) -> tuple[Clause, list[str], list[str]]:
    """(clause, spans typed by the model, spans left unresolved): the grammar first, the model
    only on the spans it could not type."""
    res = parse_prereq(text, subjects)
    fixed: dict[str, object] = {}
    by_model, left = [], []
    for span in res.unresolved:
        got = fallback(span.text) if fallback is not None else None
        if got is not None:
            fixed[span.text] = got.prerequisite
            by_model.append(span.text)
        else:
            left.append(span.text)
    node = res.clause.prerequisite
    if fixed and node is not None:
        node = _replace_unsupported(node, fixed)
        node = flatten(node) if node is not None else None
    return Clause(prerequisite=node, recommended=res.clause.recommended), by_model, left


def emit(state: CatalogState, institution: str, fallback: Fallback | None = None) -> Emitted:
    out_courses, facts, unresolved, policies, clauses = [], [], [], [], {}
    for cid in sorted(state.courses):
        ent = state.courses[cid]
        units = float(re.sub(r"[^\d.]", "", ent.units.value) or 0) if ent.units else 0.0
        if ent.title is None or units <= 0:
            missing = [n for n, ok in (("title", ent.title), ("units", units > 0)) if not ok]
            unresolved.append({"entity": f"course:{cid}", "fields": missing})
            continue
        pre = None
        if ent.prereq is not None:
            clause, by_model, left = type_prose(ent.prereq.value, fallback)
            clauses[cid] = {
                "text": ent.prereq.value,
                "clause": clause.model_dump(mode="json"),
                "model_spans": by_model,
                "unresolved_spans": left,
            }
            for s in left:
                unresolved.append({"entity": f"course:{cid}", "fields": ["prereq"], "span": s})
            if clause.prerequisite is not None:
                pre = to_expr(clause.prerequisite, STANDING_UNITS, cid, policies, _prov(ent.prereq))
                pre.provenance = _prov(ent.prereq)
        elif not ent.prereq_known:
            unresolved.append({"entity": f"course:{cid}", "fields": ["prereq"]})
        subj, num = cid.split()
        level = int(re.sub(r"\D", "", num) or 0) // 100 * 100
        out_courses.append(
            Course(
                id=cid,
                title=ent.title.value,
                units=units,
                department=subj,
                level=level,
                description=ent.description.value if ent.description else "",
                prerequisite=pre,
                cross_listings=list(ent.cross_listings),
                provenance=_prov(ent.id),
            )
        )
        for name in ("id", "title", "units", "description", "prereq"):
            loc = getattr(ent, name)
            if loc is not None:
                facts.append(
                    {
                        "entity": f"course:{cid}",
                        "field": name,
                        "value": loc.value,
                        "source": loc.url,
                        "start": loc.start,
                        "end": loc.end,
                    }
                )
    programs = []
    for pid in sorted(state.programs):
        rec, url = state.programs[pid]
        items = []
        for label, f in rec.groups:
            clause, _m, left = type_prose(f.value, fallback)
            if clause.prerequisite is None:
                continue
            e = to_expr(
                clause.prerequisite,
                STANDING_UNITS,
                pid,
                policies,
                Provenance(source=url, start=f.start, end=f.end),
            )
            e.label = label
            e.provenance = Provenance(source=url, start=f.start, end=f.end)
            items.append(e)
            facts.append(
                {
                    "entity": f"program:{pid}",
                    "field": f"requirement:{label}",
                    "value": f.value,
                    "source": url,
                    "start": f.start,
                    "end": f.end,
                }
            )
        kind = (
            rec.kind
            if rec.kind in ("degree", "major", "minor", "concentration", "track")
            else "major"
        )
        prov = Provenance(source=url, start=rec.name.start, end=rec.name.end)
        facts.append(
            {
                "entity": f"program:{pid}",
                "field": "name",
                "value": rec.name.value,
                "source": url,
                "start": rec.name.start,
                "end": rec.name.end,
            }
        )
        programs.append(
            Program(
                id=pid,
                name=rec.name.value,
                kind=kind,
                ge_framework="GE" if state.ge else None,
                requirement=AllOf(items=items),
                provenance=prov,
            )
        )
    cats = []
    for gid in sorted(state.ge):
        g, url = state.ge[gid]
        cats.append(
            GECategory(
                id=gid,
                name=g.name.value,
                min_courses=g.min_courses,
                courses=g.courses,
                provenance=Provenance(source=url, start=g.rule.start, end=g.rule.end),
            )
        )
        facts.append(
            {
                "entity": f"ge:{gid}",
                "field": "rule",
                "value": g.rule.value,
                "source": url,
                "start": g.rule.start,
                "end": g.rule.end,
            }
        )
    frameworks = []
    if cats:
        first = state.ge[cats[0].id]
        frameworks.append(
            GEFramework(
                id="GE",
                name="General Education",
                categories=cats,
                provenance=Provenance(
                    source=first[1], start=first[0].name.start, end=first[0].name.end
                ),
            )
        )
    sources = [Source(id=u, uri=u) for u in state.opened if u not in state.failed]
    docs = CatalogDocs(
        courses=CoursesDoc(
            institution=institution,
            standing_levels=STANDING_UNITS,
            sources=sources,
            courses=out_courses,
            unsupported_policies=policies,
        ),
        programs=ProgramsDoc(institution=institution, sources=sources, programs=programs),
        ge=GEDoc(institution=institution, sources=sources, frameworks=frameworks),
    )
    return Emitted(docs, facts, unresolved, clauses)
