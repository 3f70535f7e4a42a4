"""St. Olaf general education from the Bachelor of Arts area file: KnowPlan, "Problem
Formulation" (J_GE). Each GE requirement of the file becomes one category whose expression is
the file's own (where-expressions over GE codes, department counts, the EIN-after-BTS-T rule);
degree-level rules the file leaves unimplemented are recorded as notes."""

from __future__ import annotations

import re

import yaml

from planner.documents import Expr, GECategory, GEFramework, Provenance
from planner.hypergraph import walk
from planner.stolaf.aliases import Departments
from planner.stolaf.courses import CourseIndex
from planner.stolaf.hanson import HansonFile
from planner.stolaf.policies import Policies

FRAMEWORK_ID = "stolaf-ba-ge"


def _min_courses(e: Expr) -> int:
    k = e.kind
    if k == "pool":
        return e.min_courses
    if k == "not_before":
        return e.n
    if k == "all_of":
        # Overlapping counts ("two courses from children") re-count the children's courses.
        return sum(_min_courses(i) for i in e.items if i.kind != "pool" or not i.overlap)
    if k in ("any_of", "choose_n"):
        n = 1 if k == "any_of" else e.n
        return sum(sorted(_min_courses(i) for i in e.items)[:n])
    if k == "course":
        return 1
    return 0


def ba_framework(
    rel: str, text: str, idx: CourseIndex, deps: Departments, pol: Policies
) -> GEFramework:
    data = yaml.safe_load(text)
    h = HansonFile(rel, text, FRAMEWORK_ID, idx, deps, pol)
    cats = []
    ge = data["General Education"]
    for group in ("Foundation", "Core", "Integrative"):
        for name, body in ge[group].items():
            if not str(name)[:1].isupper():
                continue
            expr = h.requirement(name, body, ["General Education", group, name])
            m = re.fullmatch(r"(.*?)\s*\(([^()]+)\)", name)
            base, abbr = (m.group(1), m.group(2)) if m else (name, None)
            courses = sorted(
                {
                    c
                    for node in walk(expr)
                    for c in (
                        [node.course]
                        if node.kind == "course"
                        else getattr(getattr(node, "pool", None), "courses", [])
                    )
                }
            )
            cats.append(
                GECategory(
                    id=abbr or re.sub(r"[^A-Za-z0-9]+", "-", base).strip("-"),
                    name=base,
                    min_courses=_min_courses(expr),
                    courses=courses,
                    requirement=expr,
                    provenance=h.prov(name),
                )
            )
    degree = data.get("Degree Requirements") or {}
    unencoded = [
        str(n)
        for n, b in degree.items()
        if str(n)[:1].isupper() and isinstance(b, dict) and not str(b.get("result") or "").strip()
    ]
    if unencoded:
        pol.note(
            "Bachelor of Arts degree requirements the file leaves unimplemented ('Not "
            "implemented yet.'), so no plan checks them: " + ", ".join(unencoded),
            [FRAMEWORK_ID, "Degree Requirements"],
            h.prov("Degree Requirements"),
        )
    return GEFramework(
        id=FRAMEWORK_ID,
        name=f"St. Olaf Bachelor of Arts general education ({data.get('revision', '')})",
        courses_count_once=True,
        categories=cats,
        provenance=Provenance(source=rel, start=0, end=len(text)),
    )
