"""Seeded synthetic catalogs and profiles: KnowPlan, "Planning requests and paired graphs"."""

from __future__ import annotations

import random

from planner.documents import (
    AllOf,
    AnyOf,
    CatalogDocs,
    ChooseN,
    Condition,
    Conditional,
    Consent,
    Coreq,
    Course,
    CourseRef,
    CoursesDoc,
    DoubleCount,
    GECategory,
    GEDoc,
    GEFramework,
    MinUnits,
    Pool,
    PoolSpec,
    Program,
    ProgramsDoc,
    Provenance,
    Source,
    Standing,
)
from planner.profile import Request

TOPICS = {
    "CS": [
        "algorithms",
        "systems",
        "networks",
        "machine learning",
        "databases",
        "security",
        "graphics",
        "compilers",
    ],
    "MATH": [
        "algebra",
        "analysis",
        "topology",
        "probability",
        "statistics",
        "geometry",
        "combinatorics",
        "optimization",
    ],
    "ECON": [
        "markets",
        "policy",
        "finance",
        "labor",
        "development",
        "trade",
        "econometrics",
        "behavior",
    ],
    "BIO": [
        "genetics",
        "ecology",
        "cells",
        "evolution",
        "neuroscience",
        "microbes",
        "physiology",
        "plants",
    ],
    "PHYS": [
        "mechanics",
        "quantum",
        "optics",
        "astrophysics",
        "electronics",
        "thermodynamics",
        "materials",
        "relativity",
    ],
    "HIST": [
        "empires",
        "revolutions",
        "medieval",
        "modern asia",
        "americas",
        "war",
        "religion",
        "science history",
    ],
}
UNITS = [(4, 0.55), (3, 0.35), (1, 0.10)]


def _prov(src: str, i: int) -> Provenance:
    return Provenance(source=src, start=i * 100, end=i * 100 + 80)


def _units(rng: random.Random) -> int:
    r, acc = rng.random(), 0.0
    for u, p in UNITS:
        acc += p
        if r < acc:
            return u
    return 4


def make_catalog(seed: int = 0, n_courses: int = 300, n_programs: int = 6) -> CatalogDocs:
    """A catalog with prerequisite depth, CHOOSE_N pools, offerings and GE categories."""
    rng = random.Random(seed)
    depts = list(TOPICS)
    per = max(n_courses // len(depts), 8)
    courses: list[Course] = []
    by_dept_level: dict[tuple[str, int], list[str]] = {}
    i = 0
    for d in depts:
        for j in range(per):
            level = 100 * (1 + min(3, j * 4 // per))
            cid = f"{d} {level + j:03d}"
            topic = rng.choice(TOPICS[d])
            units = 1 if j % 17 == 16 else _units(rng)
            seasons = rng.choices([[], ["fall"], ["spring"]], weights=[0.7, 0.15, 0.15])[0]
            pre = None
            lower = [c for lv in range(100, level, 100) for c in by_dept_level.get((d, lv), [])]
            if lower:
                picks = rng.sample(lower, min(len(lower), rng.choice([1, 1, 2, 3])))
                refs = [CourseRef(course=p) for p in picks]
                r = rng.random()
                if r < 0.35 or len(refs) == 1:
                    pre = refs[0] if len(refs) == 1 else AllOf(items=refs)
                elif r < 0.75:
                    pre = AnyOf(items=[*refs, Consent()] if rng.random() < 0.3 else refs)
                else:
                    pre = ChooseN(n=2, items=refs) if len(refs) >= 2 else refs[0]
                if level >= 400 and rng.random() < 0.3:
                    pre = AllOf(items=[pre, Standing(min_units=48, label="junior standing")])
            if units == 1 and courses and courses[-1].department == d:
                # Labs are corequisite with the lecture just before them.
                pre = Coreq(course=courses[-1].id)
            courses.append(
                Course(
                    id=cid,
                    title=f"{topic.title()} {level // 100}",
                    units=units,
                    department=d,
                    level=level,
                    terms_offered=seasons,
                    description=f"Studies {topic} in {d.lower()} at level {level}.",
                    prerequisite=pre,
                    provenance=_prov("synthetic:courses", i),
                )
            )
            by_dept_level.setdefault((d, level), []).append(cid)
            i += 1
    ids = [c.id for c in courses]
    index = {c.id: c for c in courses}
    # A few cross-listings and exclusions between same-level courses of different departments.
    for _ in range(max(2, n_courses // 60)):
        a, b = rng.sample(ids, 2)
        if index[a].department != index[b].department and index[a].units == index[b].units:
            index[a].cross_listings.append(b)
    for _ in range(max(2, n_courses // 60)):
        a, b = rng.sample(ids, 2)
        index[a].exclusions.append(b)
    programs: list[Program] = []
    for p in range(n_programs):
        d = depts[p % len(depts)]
        dc = [c for c in ids if index[c].department == d]
        # Sized like a real major: ~6 core, 4 of 12 electives, 3 upper-level, 12 breadth units.
        core = [
            dc[0],
            dc[len(dc) // 8],
            dc[len(dc) // 4],
            dc[3 * len(dc) // 8],
            dc[len(dc) // 2],
            dc[5 * len(dc) // 8],
        ]
        electives = rng.sample([c for c in dc if index[c].level >= 200 and c not in core], 12)
        intro = dc[1]
        req = AllOf(
            items=[
                AllOf(label="Core", items=[CourseRef(course=c) for c in core]),
                ChooseN(label="Electives", n=4, items=[CourseRef(course=c) for c in electives]),
                Pool(
                    label="Upper level",
                    min_courses=3,
                    pool=PoolSpec(departments=[d], min_level=300, exclude=core),
                ),
                MinUnits(
                    label="Breadth units",
                    units=12,
                    pool=PoolSpec(departments=[depts[(p + 1) % len(depts)]]),
                ),
                Conditional(
                    label="Intro (waived for transfers)",
                    condition=Condition(flag="transfer", equals=False),
                    then=CourseRef(course=intro),
                ),
            ]
        )
        programs.append(
            Program(
                id=f"{d}-BA-{p}",
                name=f"{d} major {p}",
                kind="major",
                ge_framework="GE",
                requirement=req,
                double_count=DoubleCount(within_program=p % 2 == 0),
                provenance=_prov("synthetic:programs", p),
            )
        )
    cats = []
    for k, name in enumerate(
        ["Writing", "Quantitative", "Science", "Humanities", "Social", "Global"]
    ):
        pool = sorted(rng.sample([c for c in ids if index[c].level <= 200], 25))
        cats.append(
            GECategory(
                id=name[:3].upper(),
                name=name,
                min_courses=1 + (k == 0),
                courses=pool,
                provenance=_prov("synthetic:ge", k),
            )
        )
    src = [Source(id="synthetic", uri=f"synthetic://seed/{seed}", license="CC0")]
    return CatalogDocs(
        courses=CoursesDoc(
            institution=f"Synthetic U {seed}",
            catalog_year="2025",
            standing_levels={"junior": 48},
            sources=src,
            courses=courses,
        ),
        programs=ProgramsDoc(institution=f"Synthetic U {seed}", sources=src, programs=programs),
        ge=GEDoc(
            institution=f"Synthetic U {seed}",
            sources=src,
            frameworks=[
                GEFramework(
                    id="GE",
                    name="General Education",
                    categories=cats,
                    provenance=_prov("synthetic:ge", 99),
                )
            ],
        ),
    )


def make_profiles(docs: CatalogDocs, n: int, seed: int = 0) -> list[Request]:
    """Latent profiles: program, transcript, transfer, horizon, capacity, risk, interests."""
    rng = random.Random(seed + 7919)
    progs = [p.id for p in docs.programs.programs]
    intro = [c for c in docs.courses.courses if c.prerequisite is None and c.level == 100]
    out = []
    for _ in range(n):
        pid = rng.choice(progs)
        d = pid.split("-")[0]
        done = rng.sample(intro, rng.randint(0, 6))
        words = rng.sample([w for ws in TOPICS.values() for w in ws], rng.randint(1, 3))
        out.append(
            Request(
                program=pid,
                completed=sorted(c.id for c in done),
                transfer=rng.random() < 0.2,
                horizon=rng.choice([6, 8, 8, 10, 12]),
                max_units_per_term=rng.choice([12, 13, 15, 16, 18]),
                risk_tolerance=rng.choice(["low", "medium", "high"]),
                interests=words,
                avoid=[rng.choice([x for x in TOPICS if x != d])] if rng.random() < 0.3 else [],
            )
        )
    return out
