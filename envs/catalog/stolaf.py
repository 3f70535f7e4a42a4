"""St. Olaf snapshot from real records: KnowPlan, "Dense-6" (a real institution, real prose).

Course pages per department carry the real titles, credits, descriptions and prerequisite strings
of the fall 2025 schedule (StoDevX course-data, MIT); program pages state the requirements that
scripts/convert_stolaf.py read from the Hanson-format files (gobbldygook-area-data, MIT), in
prose; GE categories and a term schedule as JSON. Gold is the converted documents in
data/catalogs/stolaf (inventory, titles, credits, programs, GE); prerequisite ASTs of the real
prose are scored on the hand-annotated strings in the benchmark, not against converter output.
"""

from __future__ import annotations

import json
from pathlib import Path

from envs.catalog.snapshot import write_snapshot
from envs.catalog.synth.build import (
    FROZEN_AT,
    choose_masked,
    masked_denominator,
    write_gold,
)
from envs.catalog.synth.site import Site, esc
from planner.documents import CatalogDocs, Program, load_docs

COURSES_FILE = "stolaf-courses/terms-20251.json"
WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def _pool_words(spec) -> str:
    if spec.courses:
        return ", ".join(spec.courses)
    level = f" at level {spec.min_level} or above" if spec.min_level else ""
    return " or ".join(spec.departments or ["any department's"]) + f" courses{level}"


# Counting rules over a course pool, in the catalog's words (a program names them in prose).
_POOL_PHRASES = {
    "pool": lambda e: (
        f"{WORDS.get(e.min_courses, e.min_courses)} courses from {_pool_words(e.pool)}"
    ),
    "at_most": lambda e: f"at most {e.n} courses from {_pool_words(e.pool)}",
    "min_departments": lambda e: (
        f"courses in at least {e.n} departments among {_pool_words(e.pool)}"
    ),
    "min_units": lambda e: f"{e.units:g} units from {_pool_words(e.pool)}",
    "not_before": lambda e: (
        f"{e.n} courses from {_pool_words(e.pool)}, none before {_pool_words(e.after)}"
    ),
}


def _prose(expr, policies: dict[str, str]) -> str:
    k = expr.kind
    if k == "course":
        return expr.course
    if k == "unsupported":
        return policies.get(expr.policy, expr.label or "see department")
    if k in _POOL_PHRASES:
        return _POOL_PHRASES[k](expr)
    if k == "conditional":
        return _prose(expr.then, policies)
    items = [_prose(i, policies) for i in expr.items]
    items = [
        f"({t})" if getattr(i, "items", None) else t for t, i in zip(items, expr.items, strict=True)
    ]
    body = ", ".join(items[:-1]) + ("," if len(items) > 2 else "")
    if len(items) == 1:
        return items[0]
    if k == "all_of":
        return f"{body} and {items[-1]}"
    if k == "any_of":
        return f"one of {body} or {items[-1]}"
    return f"{WORDS.get(expr.n, expr.n)} of {body} and {items[-1]}"


def _program_lines(p: Program, policies: dict[str, str]) -> list[tuple[str, str]]:
    req = p.requirement
    parts = req.items if req.kind == "all_of" else [req]
    out = []
    for i, e in enumerate(parts, 1):
        label = e.label or f"Requirement {i}"
        out.append((label, _prose(e, policies) + "."))
    return out


def render(records: list[dict], docs: CatalogDocs, hidden: set[str]) -> Site:
    site = Site(root="/", hidden=hidden)
    courses = {c.id: c for c in docs.courses.courses}
    prose: dict[str, str] = {}
    for r in records:
        cid = f"{r['department']} {r['number']}"
        if cid in courses and r.get("prerequisites") and cid not in prose:
            prose[cid] = " ".join(str(r["prerequisites"]).split())
    depts: dict[str, list] = {}
    for c in docs.courses.courses:
        depts.setdefault(c.department, []).append(c)
    site.page("/")
    nav = [
        ("/courses/", "Course Descriptions"),
        ("/programs/", "Majors and Concentrations"),
        ("/ge/", "General Education Requirements"),
        ("/schedule/", "Class and Lab schedule"),
        ("/news/", "News"),
    ]
    site.html(
        "/",
        "St. Olaf College",
        "<h1>St. Olaf College Catalog 2025-26</h1><ul>"
        + "".join(f"<li>{site.a(u, t)}</li>" for u, t in nav)
        + "</ul>",
    )
    site.page("/courses/")
    lis = "".join(
        f"<li>{site.a(f'/courses/{d.lower()}/', f'{d} courses ({d})')}</li>" for d in sorted(depts)
    )
    site.html(
        "/courses/",
        "Courses",
        f'<h1>Course Descriptions</h1><p class="count">{len(depts)} subjects, '
        f'{len(courses)} courses</p><ul id="atozindex">{lis}</ul>',
        index="subjects",
    )
    for d, cs in sorted(depts.items()):
        url = f"/courses/{d.lower()}/"
        site.page(url)
        blocks = []
        for c in cs:
            u = f"{c.units:.2f}"
            extra = (
                f'<p class="courseblockextra">Prerequisite: {esc(prose[c.id])}</p>'
                if c.id in prose
                else ""
            )
            blocks.append(
                f'<div class="courseblock"><p class="courseblocktitle"><strong>{esc(c.id)}. '
                f"{esc(c.title)}. "
                f"{u} Credit{'s' if c.units != 1 else ''}.</strong></p>"
                f'<p class="courseblockdesc">{esc(c.description)}</p>{extra}</div>'
            )
            site.cite(f"course:{c.id}", url)
        site.html(
            url,
            d,
            f'<h1>{d}</h1><p class="count">{len(cs)} courses</p>{"".join(blocks)}',
            index="subject",
        )
    policies = {p.id: p.text for p in docs.unsupported()}
    site.page("/programs/")
    lis = "".join(
        f"<li>{site.a(f'/programs/{p.id}/', p.name)}</li>" for p in docs.programs.programs
    )
    site.html(
        "/programs/",
        "Programs",
        f'<h1>Majors and Concentrations</h1><p class="count">'
        f"{len(docs.programs.programs)} programs</p><ul>{lis}</ul>",
        index="programs",
    )
    for p in docs.programs.programs:
        url = f"/programs/{p.id}/"
        site.page(url)
        reqs = "".join(
            f'<p class="req"><strong>{esc(lab)}:</strong> {esc(t)}</p>'
            for lab, t in _program_lines(p, policies)
        )
        site.html(url, p.name, f'<h1 class="program" data-kind="{p.kind}">{esc(p.name)}</h1>{reqs}')
        site.cite(f"program:{p.id}", url)
    site.page("/ge/")
    cats = "".join(
        f'<div class="gecat"><h2>{esc(c.name)} ({c.id})</h2><p>Complete {c.min_courses} course'
        f"{'s' if c.min_courses > 1 else ''} from: {', '.join(c.courses)}.</p></div>"
        for fw in docs.ge.frameworks
        for c in fw.categories
    )
    site.html("/ge/", "GE", f"<h1>General Education</h1>{cats}")
    site.cite("ge", "/ge/")
    site.page("/schedule/")
    site.html(
        "/schedule/",
        "Schedule",
        "<h1>Class and Lab</h1><p>"
        + site.a("/schedule/20251.json", "Fall 2025 sections (JSON)")
        + "</p>",
    )
    sections = [
        {
            "course": f"{r['department']} {r['number']}",
            "section": r.get("section"),
            "times": r.get("times") or r.get("offerings"),
            "instructors": r.get("instructors"),
        }
        for r in records
    ]
    site.page("/schedule/20251.json")
    site.add(
        "/schedule/20251.json",
        (json.dumps({"term": 20251, "sections": sections}, indent=1) + "\n").encode(),
        "application/json",
    )
    site.page("/news/")
    site.html("/news/", "News", "<h1>News</h1><p>Welcome back, Oles.</p>")
    return site


def build_stolaf(src: Path, docs_dir: Path, out: Path, masked: bool = False) -> dict:
    path = Path(src) / COURSES_FILE
    if not path.exists():
        raise FileNotFoundError(f"{path}: St. Olaf course records not found (see --src)")
    records = json.loads(path.read_text())
    docs = load_docs(docs_dir)
    for p in docs.programs.programs:
        p.id = "-".join(p.name.lower().split()) + (
            "-major" if p.kind == "major" else "-concentration"
        )
        p.name = p.name + (" Major" if p.kind == "major" else " Concentration")
    site = render(records, docs, set())
    hidden: set[str] = set()
    denominator: list[str] = []
    if masked:
        hidden = choose_masked(site, 0)
        msite = render(records, docs, hidden)
        denominator = masked_denominator(site, msite)
        site = msite
    write_snapshot(
        Path(out) / "site", "St. Olaf College", "stolaf", site.root, site.pages, FROZEN_AT
    )
    # The converter's prerequisite trees are not gold; real prose is scored on hand annotations.
    meta = {
        "family": "stolaf",
        "seed": 0,
        "ast_gold": False,
        "track": "masked" if masked else "plain",
        "root": site.root,
        "index_pages": sorted(site.index_pages),
        "masked_pages": sorted(hidden),
        "masked_entities": denominator,
        "evidence": {k: sorted(v) for k, v in sorted(site.evidence.items())},
    }
    write_gold(Path(out) / "gold", docs, meta)
    return meta
