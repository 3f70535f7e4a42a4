"""St. Olaf sources to the three documents: KnowPlan, "Problem Formulation" (J_course,
J_program, J_GE, every fact with provenance). The solver never imports this package; the
converter script and `pathwise plan verify --terms` (the term-file reader) do."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import yaml

from planner.documents import (
    CatalogDocs,
    CoursesDoc,
    GECategory,
    GEDoc,
    GEFramework,
    Program,
    ProgramsDoc,
    Provenance,
    Source,
    UnsupportedPolicy,
)
from planner.stolaf.aliases import ABBREVIATIONS, NAMES, Departments
from planner.stolaf.courses import (
    SOURCE_DIR,
    CourseIndex,
    build_courses,
    build_index,
    calendar_term,
    read_terms,
)
from planner.stolaf.ge import FRAMEWORK_ID, ba_framework
from planner.stolaf.hanson import HansonFile
from planner.stolaf.policies import Policies
from planner.term_files import term_files

AREAS = "stolaf-degree-requirements"
INSTITUTION = "St. Olaf College"
COURSE_DATA = "https://github.com/StoDevX/course-data"
AREA_DATA = "https://github.com/hawkrives/gobbldygook-area-data"


def convert(src: Path, term_ids: list[str] | None = None, observed: bool = True) -> CatalogDocs:
    """Documents for the given terms (default: every 2014-2018 term file).

    observed=True: each course is offered exactly where its sections appear (the calendar of
    those terms) and GE is the Bachelor of Arts framework; observed=False (a single term such
    as fall 2025): every course is treated as offered every term, recorded as a policy, and GE
    is the codes observed on its sections."""
    cdir = src / SOURCE_DIR
    deps = Departments.load(cdir)
    if term_ids is None:
        term_ids = sorted(t for t in term_files(cdir) if t.startswith("201"))
    terms = read_terms(cdir, term_ids, deps)
    idx = build_index(terms, deps, revisions=observed)
    pol_c, pol_p, pol_g = (
        Policies("course-policy"),
        Policies("program-policy"),
        Policies("ge-policy"),
    )

    def prose_policy(clause: str, kind: str, cid: str, prov: Provenance):
        return pol_c.add(clause, kind, [cid], prov)

    courses = build_courses(terms, deps, idx, prose_policy, observed)
    sources = [
        Source(id=td.file, uri=COURSE_DATA, license="MIT", title=f"St. Olaf sections, term {td.id}")
        for td in terms
    ] + [
        Source(id=f"{SOURCE_DIR}/{n}", uri=COURSE_DATA, license="MIT", title="department aliases")
        for n in (ABBREVIATIONS, NAMES)
    ]
    first = Provenance(source=terms[0].file, start=0, end=1)
    if observed:
        pol_c.records.append(
            UnsupportedPolicy(
                id="course-policy-interim-load",
                text="The term files give no load rule for interim (January) terms; the "
                "request's caps (max_units_per_term, max_units_by_season) apply to interim "
                "as to any other term.",
                kind="note",
                applies_to=["interim"],
                provenance=first,
            )
        )
    else:
        pol_c.records.append(
            UnsupportedPolicy(
                id="course-policy-offerings",
                text=f"Only term {term_ids[0]} is observed; offerings in other terms are "
                "unknown, so every course is treated as offered every term.",
                kind="note",
                applies_to=[],
                provenance=first,
            )
        )
    area = src / AREAS
    if observed:
        ba = area / "degrees" / "bachelor-of-arts.yaml"
        fw = ba_framework(f"{AREAS}/degrees/{ba.name}", ba.read_text(), idx, deps, pol_g)
    else:
        fw = _observed_framework(terms[0].file, idx)
    programs = []
    for sub in ("majors", "concentrations"):
        for f in sorted((area / sub).glob("*.yaml")):
            text = f.read_text()
            data = yaml.safe_load(text)
            rel = f"{AREAS}/{sub}/{f.name}"
            h = HansonFile(rel, text, f.stem, idx, deps, pol_p)
            req = h.requirement(str(data["name"]), data, [])
            programs.append(
                Program(
                    id=f.stem,
                    name=str(data["name"]),
                    kind="major" if sub == "majors" else "concentration",
                    ge_framework=fw.id,
                    requirement=req,
                    double_count={
                        "within_program": bool(data.get("children share courses", False))
                    },
                    provenance=Provenance(
                        source=rel, start=0, end=len(text), aliases=sorted(set(h.aliases))
                    ),
                )
            )
    calendar = [calendar_term(t) for t in term_ids] if observed else []
    year = f"{term_ids[0][:4]}-{int(term_ids[-1][:4]) + 1}"
    src_p = Source(id=AREAS, uri=AREA_DATA, license="MIT", title="Hanson-format area files")
    return CatalogDocs(
        courses=CoursesDoc(
            institution=INSTITUTION,
            catalog_year=year if observed else f"{term_ids[0][:4]}-{int(term_ids[0][:4]) + 1}",
            term_cycle=["fall", "interim", "spring"] if observed else ["fall", "spring"],
            calendar=calendar,
            standing_levels={"sophomore": 7.0, "junior": 14.0, "senior": 21.0},
            sources=sources,
            courses=courses,
            unsupported_policies=pol_c.records,
        ),
        programs=ProgramsDoc(
            institution=INSTITUTION,
            sources=[src_p],
            programs=programs,
            unsupported_policies=pol_p.records,
        ),
        ge=GEDoc(
            institution=INSTITUTION,
            sources=[src_p] if observed else sources[:1],
            frameworks=[fw],
            unsupported_policies=pol_g.records,
        ),
    )


def _observed_framework(source: str, idx: CourseIndex) -> GEFramework:
    """One category per GE code observed on the sections (not St. Olaf's GE rule set)."""
    prov = Provenance(source=source, start=0, end=1)
    cats = [
        GECategory(id=g, name=f"St. Olaf GE code {g}", courses=cs, provenance=prov)
        for g, cs in sorted(idx.ge_pools().items())
    ]
    return GEFramework(
        id="stolaf-ge-observed",
        name="GE codes observed on the term's sections",
        categories=cats,
        provenance=prov,
    )


def summary(docs: CatalogDocs, idx_partial: Counter[str] | None = None) -> str:
    fw = docs.ge.frameworks[0]
    kinds = Counter(p.kind or "other" for p in docs.unsupported())
    return (
        f"{len(docs.courses.courses)} courses, {len(docs.programs.programs)} programs, "
        f"{len(fw.categories)} GE categories ({fw.id}), {len(docs.unsupported())} unsupported "
        "policies (" + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) + ")"
    )


__all__ = ["FRAMEWORK_ID", "convert", "summary"]
