"""A custom hand-made department site: KnowPlan, "Dense-6" (custom HTML, no platform template).

Departments in a table, each department's courses in a table of code / title / credits, and one
detail page per course whose prerequisite sits in a definition list under a house label. Every
course also links a class-schedule page (not catalog content); the staff page is a dead link.
"""

from __future__ import annotations

from envs.catalog.synth.common import ge_line, news, prose_for, requirement_lines
from envs.catalog.synth.school import School
from envs.catalog.synth.site import Site, esc


def render(school: School, hidden: set[str]) -> Site:
    site = Site(root="/index.html", hidden=hidden)
    p, pre = prose_for(school)
    site.page("/index.html")
    nav = [
        ("/academics/departments.html", "Academics: departments and courses"),
        ("/majors.html", "Majors & Minors"),
        ("/core.html", "Core Curriculum"),
        ("/life/", "Campus Life"),
        ("/staff.html", "Staff"),
    ]
    site.html(
        "/index.html",
        school.name,
        f"<header><h1>Welcome to {esc(school.name)}</h1></header><nav>"
        + " | ".join(site.a(u, t) for u, t in nav)
        + "</nav>",
    )
    site.page("/academics/departments.html")
    rows = "".join(
        f"<tr><td>{site.a(f'/dept/{d.code.lower()}.html', d.name)}</td><td>{d.code}</td></tr>"
        for d in school.departments
    )
    site.html(
        "/academics/departments.html",
        "Departments",
        f'<h1>Departments</h1><p class="count">We offer {len(school.departments)} departments.'
        f'</p><table class="departments">{rows}</table>',
        index="subjects",
    )
    for d in school.departments:
        url = f"/dept/{d.code.lower()}.html"
        site.page(url)
        rows = "".join(
            f"<tr><td>{site.a(f'/dept/{d.code.lower()}/{c.number}.html', c.id)}</td>"
            f"<td>{esc(c.title)}</td><td>{c.units:g}</td></tr>"
            for c in d.courses
        )
        site.html(
            url,
            d.name,
            f'<h1>{esc(d.name)}</h1><table class="courses"><tr><th>Code</th><th>Title</th>'
            f"<th>Credits</th></tr>{rows}</table>",
            index="subject",
        )
        for c in d.courses:
            site.cite(f"course:{c.id}", url)
            curl = f"/dept/{d.code.lower()}/{c.number}.html"
            surl = f"/schedule/{d.code.lower()}-{c.number}.html"
            site.page(curl)
            dl = f"<dt>Credits</dt><dd>{c.units:g}</dd>"
            dl += f"<dt>Description</dt><dd>{esc(c.description)}</dd>"
            if pre[c.id]:
                dl += f"<dt>Before you enroll</dt><dd>{esc(pre[c.id])}</dd>"
            if c.cross_listings:
                dl += f"<dt>Also listed as</dt><dd>{', '.join(c.cross_listings)}</dd>"
            site.html(
                curl,
                c.id,
                f"<h2>{esc(c.id)}: {esc(c.title)}</h2><dl>{dl}</dl>"
                f"<p>{site.a(surl, 'Class schedule')}</p>",
            )
            site.cite(f"course:{c.id}", curl)
            site.page(surl)
            site.html(
                surl, "Schedule", f"<h2>Sections</h2><p>MWF 10:00, room {c.number % 40 + 100}</p>"
            )
    site.page("/majors.html")
    items = ""
    for g in school.programs:
        reqs = "".join(f"<p>{esc(lab)}: {esc(t)}</p>" for lab, t in requirement_lines(p, g))
        items += f'<dt id="{g.id}" data-kind="{g.kind}">{esc(g.name)}</dt><dd>{reqs}</dd>'
        site.cite(f"program:{g.id}", "/majors.html")
    site.html(
        "/majors.html", "Majors", f'<h1>Majors &amp; Minors</h1><dl class="programs">{items}</dl>'
    )
    site.page("/core.html")
    rows = "".join(
        f"<tr><td>{esc(c[1])} ({c[0]})</td><td>{esc(ge_line(c))}</td></tr>" for c in school.ge
    )
    site.html("/core.html", "Core", f'<h1>Core Curriculum</h1><table class="core">{rows}</table>')
    site.cite("ge", "/core.html")
    news(site, school, "/life")
    return site
