"""Gold documents for a synthetic school: KnowPlan, "Annotation" (normalized facts with spans).

The generator knows every fact; gold is the three planner documents with each fact's provenance
on its canonical evidence page (offsets into that page's text, envs.catalog.text.page_text).
"""

from __future__ import annotations

from envs.catalog.synth.school import STANDING_UNITS, School
from envs.catalog.synth.site import Site
from envs.catalog.text import page_text
from planner.clause_ast import to_expr
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


def gold_docs(school: School, site: Site) -> CatalogDocs:
    texts: dict[str, str] = {}

    def prov(key: str, needle: str) -> Provenance:
        url = sorted(site.evidence[key])[0]
        if url not in texts:
            page = site.pages[url]
            texts[url] = page_text(page.body, page.content_type)
        at = max(texts[url].find(needle), 0)
        return Provenance(source=url, start=at, end=at + len(needle))

    policies: list = []
    courses = []
    for c in school.courses():
        p = prov(f"course:{c.id}", c.id)
        pre = to_expr(c.prereq, STANDING_UNITS, c.id, policies, p) if c.prereq else None
        courses.append(
            Course(
                id=c.id,
                title=c.title,
                units=c.units,
                department=c.subject,
                level=c.level,
                description=c.description,
                prerequisite=pre,
                cross_listings=list(c.cross_listings),
                provenance=p,
            )
        )
    programs = []
    for g in school.programs:
        p = prov(f"program:{g.id}", g.name)
        items = []
        for label, node in g.groups:
            e = to_expr(node, STANDING_UNITS, g.id, [], p)
            e.label = label
            items.append(e)
        programs.append(
            Program(
                id=g.id,
                name=g.name,
                kind=g.kind,
                ge_framework="GE",
                requirement=AllOf(items=items),
                provenance=p,
            )
        )
    cats = [
        GECategory(id=cid, name=name, min_courses=k, courses=list(cs), provenance=prov("ge", name))
        for cid, name, k, cs in school.ge
    ]
    src = [Source(id=site.root, uri=f"snapshot:{school.family}/{school.seed}{site.root}")]
    inst = school.name
    return CatalogDocs(
        courses=CoursesDoc(
            institution=inst,
            catalog_year=school.year,
            standing_levels=STANDING_UNITS,
            sources=src,
            courses=courses,
            unsupported_policies=policies,
        ),
        programs=ProgramsDoc(institution=inst, sources=src, programs=programs),
        ge=GEDoc(
            institution=inst,
            sources=src,
            frameworks=[
                GEFramework(
                    id="GE",
                    name="General Education",
                    categories=cats,
                    provenance=prov("ge", cats[0].name),
                )
            ],
        ),
    )
