"""Acalog-like paginated catalog: KnowPlan, "Dense-6" (structured catalog HTML with cursors).

The course list is paginated (`?page=N`, 15 per page, "Page 1 of K"); each entry links to a
`preview_course?coid=` page, the only place a course's record is published. Prerequisite course
codes link to their previews. Every preview also has a print-friendly twin (a redundant page).
"""

from __future__ import annotations

import random
import re

from envs.catalog.synth.common import ge_line, news, prose_for, requirement_lines
from envs.catalog.synth.school import School
from envs.catalog.synth.site import Site, esc

PER_PAGE = 15
_ID = re.compile(r"\b([A-Z]{2,5}) (\d{3})\b")


def render(school: School, hidden: set[str]) -> Site:
    site = Site(root="/index.php", hidden=hidden)
    p, pre = prose_for(school)
    courses = school.courses()
    rng = random.Random(f"coid:{school.seed}")
    coids = dict(
        zip([c.id for c in courses], rng.sample(range(1000, 9999), len(courses)), strict=True)
    )
    preview = {cid: f"/preview_course.php?coid={k}" for cid, k in coids.items()}

    def linked(text: str) -> str:
        out, last, subj = [], 0, None
        for m in re.finditer(r"\b([A-Z]{2,5} )?(\d{3})\b", text):
            cid = (m.group(1) or (subj + " " if subj else "")) + m.group(2)
            if m.group(1):
                subj = m.group(1).strip()
            out.append(esc(text[last : m.start()]))
            a = site.a(preview[cid], m.group(0)) if cid in preview else ""
            out.append(a or esc(m.group(0)))
            last = m.end()
        return "".join(out) + esc(text[last:])

    site.page("/index.php")
    nav = [
        ("/content.php?navoid=courses&page=1", "Course Descriptions"),
        ("/content.php?navoid=programs", "Degrees and Programs"),
        ("/content.php?navoid=ge", "Core Curriculum"),
        ("/news/", "News"),
        ("/content.php?navoid=calendar", "Academic Calendar"),
    ]
    site.html(
        "/index.php",
        school.name,
        f'<h1>{esc(school.name)} {school.year} Catalog</h1><ul class="nav">'
        + "".join(f"<li>{site.a(u, t)}</li>" for u, t in nav)
        + "</ul>",
    )
    pages = [courses[i : i + PER_PAGE] for i in range(0, len(courses), PER_PAGE)]
    for k, chunk in enumerate(pages, 1):
        url = f"/content.php?navoid=courses&page={k}"
        site.page(url)
        rows = "".join(f"<li>{site.a(preview[c.id], f'{c.id} - {c.title}')}</li>" for c in chunk)
        pager = " ".join(
            site.a(f"/content.php?navoid=courses&page={j}", str(j)) or ""
            for j in range(1, len(pages) + 1)
            if j != k
        )
        site.html(
            url,
            "Course Descriptions",
            f'<h1>Course Descriptions</h1><ul class="courses">{rows}</ul>'
            f'<p class="pager">Page {k} of {len(pages)}: {pager}</p>',
            index="pagination",
        )
    for c in courses:
        for url, twin in (
            (preview[c.id], True),
            (preview[c.id].replace("preview_", "print_"), False),
        ):
            site.page(url)
            extra = (
                f"<p>{site.a(url.replace('preview_', 'print_'), 'Print-Friendly Page')}</p>"
                if twin
                else ""
            )
            xl = (
                f"<p>Cross-listed as: {linked(', '.join(c.cross_listings))}</p>"
                if c.cross_listings
                else ""
            )
            pr = f'<p class="prereq">{linked(pre[c.id])}</p>' if pre[c.id] else ""
            site.html(
                url,
                c.id,
                f'<h1 id="course_preview_title">{esc(c.id)} - {esc(c.title)}</h1>'
                f"<p><strong>Credits:</strong> {c.units:g}</p><p>{esc(c.description)}</p>"
                f"{pr}{xl}{extra}",
            )
            site.cite(f"course:{c.id}", url)
    site.page("/content.php?navoid=programs")
    lis = "".join(
        f"<li>{site.a(f'/preview_program.php?poid={i + 1}', g.name)}</li>"
        for i, g in enumerate(school.programs)
    )
    site.html(
        "/content.php?navoid=programs",
        "Programs",
        f"<h1>Degrees and Programs</h1><ul>{lis}</ul>",
        index="programs",
    )
    for i, g in enumerate(school.programs):
        url = f"/preview_program.php?poid={i + 1}"
        site.page(url)
        reqs = "".join(
            f'<h3>{esc(label)}</h3><p class="req">{linked(text)}</p>'
            for label, text in requirement_lines(p, g)
        )
        site.html(url, g.name, f'<h1 class="program" data-kind="{g.kind}">{esc(g.name)}</h1>{reqs}')
        site.cite(f"program:{g.id}", url)
    site.page("/content.php?navoid=ge")
    cats = "".join(
        f'<div class="gecat" id="{c[0]}"><h2>{esc(c[1])} '
        f"({c[0]})</h2><p>{linked(ge_line(c))}</p></div>"
        for c in school.ge
    )
    site.html("/content.php?navoid=ge", "Core Curriculum", f"<h1>Core Curriculum</h1>{cats}")
    site.cite("ge", "/content.php?navoid=ge")
    site.page("/content.php?navoid=calendar")
    site.html(
        "/content.php?navoid=calendar",
        "Calendar",
        "<h1>Academic Calendar</h1><p>Classes begin September 2.</p>",
    )
    news(site, school, "/news")
    return site
