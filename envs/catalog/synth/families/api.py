"""JSON course API: KnowPlan, "Dense-6" (API-backed catalogs; Song et al.'s API-first access).

`/api/v1/` links subjects, programs and GE; each subject's courses come in cursor pages of 6
(`next`), with `total`. Every course also has a detail endpoint (redundant with the list item).
"""

from __future__ import annotations

import json

from envs.catalog.synth.common import ge_line, prose_for, requirement_lines
from envs.catalog.synth.school import School
from envs.catalog.synth.site import Site

PER_PAGE = 6
JSON = "application/json"


def _j(obj) -> bytes:
    return (json.dumps(obj, indent=1) + "\n").encode()


def render(school: School, hidden: set[str]) -> Site:
    site = Site(root="/api/v1/", hidden=hidden)
    p, pre = prose_for(school)
    root = {"catalog": school.name, "year": school.year, "links": {}}
    site.page("/api/v1/")
    for key, url in (
        ("subjects", "/api/v1/subjects"),
        ("programs", "/api/v1/programs"),
        ("general_education", "/api/v1/ge"),
        ("events", "/api/v1/events"),
    ):
        if site.edge(url):
            root["links"][key] = url
    site.add("/api/v1/", _j(root), JSON)
    site.page("/api/v1/subjects")
    first = {d.code: f"/api/v1/subjects/{d.code}/courses?cursor=0" for d in school.departments}
    items = [
        {"code": d.code, "name": d.name, "href": first[d.code]}
        for d in school.departments
        if site.edge(first[d.code])
    ]
    items.append(
        {
            "code": "ARCH",
            "name": "Architecture (discontinued)",
            "href": "/api/v1/subjects/ARCH/courses?cursor=0",
        }
    )
    site.edge(items[-1]["href"])
    site.add(
        "/api/v1/subjects",
        _j({"items": items, "total": len(school.departments)}),
        JSON,
        index="subjects",
    )
    for d in school.departments:
        for k in range(0, len(d.courses), PER_PAGE):
            url = f"/api/v1/subjects/{d.code}/courses?cursor={k}"
            site.page(url)
            out = []
            for c in d.courses[k : k + PER_PAGE]:
                href = f"/api/v1/courses/{c.subject}-{c.number}"
                rec = {
                    "code": c.id,
                    "title": c.title,
                    "credits": c.units,
                    "description": c.description,
                    "prerequisite_text": pre[c.id] or None,
                    "crosslisted_with": c.cross_listings,
                    "href": href if site.edge(href) else None,
                }
                out.append(rec)
                site.cite(f"course:{c.id}", url)
            page = {"subject": d.code, "items": out, "total": len(d.courses)}
            nxt = f"/api/v1/subjects/{d.code}/courses?cursor={k + PER_PAGE}"
            if k + PER_PAGE < len(d.courses) and site.edge(nxt):
                page["next"] = nxt
            site.add(url, _j(page), JSON, index="cursor")
        for c in d.courses:
            href = f"/api/v1/courses/{c.subject}-{c.number}"
            site.page(href)
            detail = {
                "code": c.id,
                "title": c.title,
                "credits": c.units,
                "description": c.description,
                "prerequisite_text": pre[c.id] or None,
                "crosslisted_with": c.cross_listings,
                "sections": [{"term": "fall", "section": "01"}],
            }
            site.add(href, _j(detail), JSON)
            site.cite(f"course:{c.id}", href)
    site.page("/api/v1/programs")
    plist = [
        {"id": g.id, "name": g.name, "href": f"/api/v1/programs/{g.id}"} for g in school.programs
    ]
    plist = [x for x in plist if site.edge(x["href"])]
    site.add(
        "/api/v1/programs",
        _j({"items": plist, "total": len(school.programs)}),
        JSON,
        index="programs",
    )
    for g in school.programs:
        url = f"/api/v1/programs/{g.id}"
        site.page(url)
        reqs = [{"label": lab, "text": t} for lab, t in requirement_lines(p, g)]
        site.add(url, _j({"id": g.id, "name": g.name, "type": g.kind, "requirements": reqs}), JSON)
        site.cite(f"program:{g.id}", url)
    site.page("/api/v1/ge")
    cats = [{"code": c[0], "name": c[1], "rule": ge_line(c)} for c in school.ge]
    site.add("/api/v1/ge", _j({"framework": "General Education", "categories": cats}), JSON)
    site.cite("ge", "/api/v1/ge")
    site.page("/api/v1/events")
    ev = [{"title": f"Open house {i}", "href": f"/api/v1/events/{i}"} for i in range(1, 6)]
    for e in ev:
        site.edge(e["href"])
    site.add("/api/v1/events", _j({"items": ev}), JSON)
    for i in range(1, 6):
        site.page(f"/api/v1/events/{i}")
        site.add(f"/api/v1/events/{i}", _j({"title": f"Open house {i}", "room": "Hall 2"}), JSON)
    return site
