"""A seeded synthetic institution (the gold the renderers publish): KnowPlan, "Broad-100".

Five departments as in the paper's Broad-100 (computer science, mathematics, economics, biology,
physics), each school spelling its subject codes its own way; courses with typed prerequisites
(clause AST), programs with core and elective requirements, and one GE framework.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from planner.clause_ast import (
    AllOfNode,
    AnyOfNode,
    ChooseNNode,
    ConcurrentNode,
    ConsentNode,
    CourseNode,
    EquivalentNode,
    PlacementNode,
    StandingNode,
)

DEPARTMENTS = [
    (
        "Computer Science",
        ["CS", "CSCI", "COMP", "CMPSC"],
        [
            "programming",
            "data structures",
            "algorithms",
            "systems",
            "networks",
            "databases",
            "machine learning",
            "security",
            "compilers",
            "graphics",
            "theory",
            "software design",
        ],
    ),
    (
        "Mathematics",
        ["MATH", "MTH", "MA"],
        [
            "calculus",
            "linear algebra",
            "proofs",
            "analysis",
            "abstract algebra",
            "probability",
            "statistics",
            "topology",
            "geometry",
            "combinatorics",
            "number theory",
            "differential equations",
        ],
    ),
    (
        "Economics",
        ["ECON", "EC", "ECO"],
        [
            "microeconomics",
            "macroeconomics",
            "econometrics",
            "labor",
            "public finance",
            "trade",
            "development",
            "game theory",
            "money and banking",
            "industrial organization",
            "behavioral economics",
            "economic history",
        ],
    ),
    (
        "Biology",
        ["BIO", "BIOL", "BI"],
        [
            "cells",
            "genetics",
            "ecology",
            "evolution",
            "physiology",
            "microbiology",
            "neuroscience",
            "botany",
            "immunology",
            "biochemistry",
            "marine biology",
            "developmental biology",
        ],
    ),
    (
        "Physics",
        ["PHYS", "PHY", "PH"],
        [
            "mechanics",
            "electricity and magnetism",
            "waves",
            "modern physics",
            "thermodynamics",
            "quantum mechanics",
            "optics",
            "astrophysics",
            "electronics",
            "relativity",
            "solid state",
            "particle physics",
        ],
    ),
]
GE_CATEGORIES = [
    ("WRI", "Writing"),
    ("QR", "Quantitative Reasoning"),
    ("NS", "Natural Science"),
    ("SS", "Social Science"),
]
TITLE_WORDS = ["Introduction to", "Topics in", "Advanced", "Foundations of", "Seminar in"]
PLACES = ["Northfield", "Lakeside", "Granite", "Riverside", "Pinecrest", "Harbor", "Summit"]
STANDING_UNITS = {"sophomore": 30.0, "junior": 60.0, "senior": 90.0}


@dataclass
class SCourse:
    id: str
    subject: str
    number: int
    title: str
    units: float
    description: str
    prereq: object | None = None  # clause AST node
    cross_listings: list[str] = field(default_factory=list)

    @property
    def level(self) -> int:
        return self.number // 100 * 100


@dataclass
class SProgram:
    id: str
    name: str
    kind: str
    subject: str
    groups: list[tuple[str, object]]  # (label, clause AST node)


@dataclass
class SDepartment:
    name: str
    code: str
    courses: list[SCourse]


@dataclass
class School:
    seed: int
    family: str
    name: str
    year: str
    departments: list[SDepartment]
    programs: list[SProgram]
    ge: list[tuple[str, str, int, list[str]]]  # (id, name, min_courses, courses)

    def courses(self) -> list[SCourse]:
        return [c for d in self.departments for c in d.courses]

    def course(self, cid: str) -> SCourse:
        return next(c for c in self.courses() if c.id == cid)


def _prereq(rng: random.Random, lower: list[str], math: list[str], labs: dict[str, str], cid: str):
    if cid in labs:
        return ConcurrentNode(course=labs[cid])
    if not lower or rng.random() < 0.15:
        return None
    pool = lower + [m for m in math if m not in lower][:3]
    shape = rng.choices(
        ["one", "all", "any", "all_any", "choose", "standing"], weights=[30, 20, 20, 15, 7, 8]
    )[0]
    pick = lambda k: [CourseNode(course=c) for c in rng.sample(pool, min(k, len(pool)))]  # noqa: E731
    node: object
    if shape == "one" or len(pool) < 2:
        node = pick(1)[0]
    elif shape == "all":
        node = AllOfNode(items=pick(2))
    elif shape == "any":
        node = AnyOfNode(items=pick(rng.choice([2, 2, 3])))
    elif shape == "all_any" and len(pool) >= 3:
        a, b, c = pick(3)
        node = AllOfNode(items=[a, AnyOfNode(items=[b, c])])
    elif shape == "choose" and len(pool) >= 3:
        node = ChooseNNode(n=2, items=pick(3))
    else:
        node = AllOfNode(
            items=[pick(1)[0], StandingNode(level=rng.choice(["sophomore", "junior"]))]
        )
    r = rng.random()
    if r < 0.2:
        items = list(node.items) if isinstance(node, AnyOfNode) else [node]
        node = AnyOfNode(items=[*items, ConsentNode(of="instructor")])
    elif r < 0.25 and isinstance(node, CourseNode):
        node = AnyOfNode(items=[node, EquivalentNode()])
    elif r < 0.3 and isinstance(node, CourseNode):
        node = AnyOfNode(items=[node, PlacementNode(course=node.course)])
    return node


def make_school(seed: int, family: str) -> School:
    rng = random.Random(f"{family}:{seed}")
    depts: list[SDepartment] = []
    labs: dict[str, str] = {}
    for name, codes, topics in DEPARTMENTS:
        code = rng.choice(codes)
        n = rng.randint(11, 15)
        numbers = sorted(rng.sample(range(100, 500), n))
        numbers = sorted({100 + (x % 100) if i < 3 else x for i, x in enumerate(numbers)})
        courses = []
        for num in numbers:
            topic = rng.choice(topics)
            cid = f"{code} {num}"
            units = rng.choice([3.0, 4.0, 4.0])
            stage = min(4, num // 100 - 1 + rng.randint(0, 1))
            title = f"{TITLE_WORDS[stage]} {topic.title()}"
            if name in ("Biology", "Physics") and courses and rng.random() < 0.15:
                labs[cid] = courses[-1].id
                title, units = f"{courses[-1].title} Laboratory", 1.0
            courses.append(
                SCourse(
                    cid,
                    code,
                    num,
                    title,
                    units,
                    f"A course in {topic} for students of {name.lower()}.",
                )
            )
        depts.append(SDepartment(name, code, courses))
    math = [c.id for c in depts[1].courses if c.level <= 200]
    for d in depts:
        for c in d.courses:
            lower = [x.id for x in d.courses if x.level < c.level]
            c.prereq = _prereq(rng, lower, math if d is not depts[1] else [], labs, c.id)
    # A few cross-listings between CS and MATH at the same level (one course, two numbers).
    for a in depts[0].courses[-4:]:
        for b in depts[1].courses[-4:]:
            if (
                a.level == b.level
                and not a.cross_listings
                and not b.cross_listings
                and rng.random() < 0.5
            ):
                a.cross_listings.append(b.id)
                b.cross_listings.append(a.id)
    programs = []
    for d in depts:
        ids = [c.id for c in d.courses if c.units > 1]
        core = ids[:4]
        electives = [c for c in ids[4:] if c not in core][:6]
        k = min(3, max(1, len(electives) - 2))
        groups = [("Core", AllOfNode(items=[CourseNode(course=c) for c in core]))]
        if len(electives) >= 3:
            groups.append(
                ("Electives", ChooseNNode(n=k, items=[CourseNode(course=c) for c in electives]))
            )
        programs.append(
            SProgram(_slug(f"{d.name} Major"), f"{d.name} Major", "major", d.code, groups)
        )
        if rng.random() < 0.4:
            minor = AllOfNode(
                items=[CourseNode(course=c) for c in ids[:2]]
                + [AnyOfNode(items=[CourseNode(course=c) for c in ids[2:5]])]
            )
            programs.append(
                SProgram(
                    _slug(f"{d.name} Minor"),
                    f"{d.name} Minor",
                    "minor",
                    d.code,
                    [("Requirements", minor)],
                )
            )
    all_ids = [c.id for c in depts[0].courses + depts[1].courses if c.level <= 200]
    sci = [c.id for c in depts[3].courses + depts[4].courses if c.level <= 200 and c.units > 1]
    soc = [c.id for c in depts[2].courses if c.level <= 300]
    ge = [
        ("WRI", "Writing", 1, sorted(rng.sample([c.id for c in rng.choice(depts).courses], 3))),
        ("QR", "Quantitative Reasoning", 1, sorted(rng.sample(all_ids, min(5, len(all_ids))))),
        ("NS", "Natural Science", 2, sorted(rng.sample(sci, min(5, len(sci))))),
        ("SS", "Social Science", 1, sorted(rng.sample(soc, min(4, len(soc))))),
    ]
    return School(
        seed,
        family,
        f"{rng.choice(PLACES)} {rng.choice(['College', 'University', 'State University'])} {seed}",
        "2025-26",
        depts,
        programs,
        ge,
    )


def _slug(name: str) -> str:
    return "-".join(name.lower().split())
