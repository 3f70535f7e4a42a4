"""Small hand-built catalogs for planner tests."""

from __future__ import annotations

from planner.documents import (
    CatalogDocs,
    Course,
    CoursesDoc,
    GEDoc,
    Program,
    ProgramsDoc,
    Provenance,
)

P = Provenance(source="test", start=0, end=1)


def course(cid: str, units: float = 4, pre=None, seasons=(), level: int = 100, **kw) -> Course:
    return Course(
        id=cid,
        title=kw.pop("title", cid),
        units=units,
        department=cid.split()[0],
        level=level,
        terms_offered=list(seasons),
        prerequisite=pre,
        provenance=P,
        **kw,
    )


def catalog(
    courses: list[Course], requirement, double_within: bool = True, frameworks=()
) -> CatalogDocs:
    return CatalogDocs(
        courses=CoursesDoc(institution="T", courses=courses),
        programs=ProgramsDoc(
            institution="T",
            programs=[
                Program(
                    id="P",
                    name="Test Program",
                    requirement=requirement,
                    provenance=P,
                    ge_framework=frameworks[0].id if frameworks else None,
                    double_count={"within_program": double_within},
                )
            ],
        ),
        ge=GEDoc(institution="T", frameworks=list(frameworks)),
    )
