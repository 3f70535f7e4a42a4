"""CourseLeaf-like static catalog: KnowPlan, "Dense-6" (structured catalog HTML).

Subject pages hold every course as a `courseblock`; each block also has a print view. Program
pages state requirements in prose; GE on one page; news and archived catalogs are decoys.
"""

from __future__ import annotations

from envs.catalog.synth.common import (
    ge_line,
    news,
    prose_for,
    requirement_lines,
    units_text,
)
from envs.catalog.synth.school import School, SCourse
from envs.catalog.synth.site import Site, esc


def _subject_url(code: str) -> str:
    return f"/courses/{code.lower()}/"


def _print_url(c: SCourse) -> str:
    return f"/courses/{c.subject.lower()}/{c.subject.lower()}-{c.number}.html"


def block(site: Site, c: SCourse, pre: str, link_print: bool) -> str:
    parts = [
        f'<div class="courseblock" id="{c.subject.lower()}{c.number}">',
        f'<p class="courseblocktitle"><strong>{esc(c.id)}. {esc(c.title)}. '
        f"{units_text(c)}.</strong></p>",
        f'<p class="courseblockdesc">{esc(c.description)}</p>',
    ]
    if pre:
        parts.append(f'<p class="courseblockextra">{esc(pre)}</p>')
    if c.cross_listings:
        parts.append(
            f'<p class="courseblockextra">Cross-listed: {", ".join(c.cross_listings)}.</p>'
        )
    if link_print:
        parts.append(f"<p>{site.a(_print_url(c), 'Print view')}</p>")
    return "".join(parts) + "</div>"


def render(school: School, hidden: set[str]) -> Site:
    site = Site(root="/", hidden=hidden)
    p, pre = prose_for(school)
    site.page("/")
    nav = [
        ("/courses/", "Course Descriptions"),
        ("/programs/", "Programs A-Z"),
        ("/ge/", "General Education Requirements"),
        ("/news/", "Campus News"),
        ("/archive/", "Archived Catalogs"),
        ("/faculty/", "Faculty Directory"),
    ]
    links = "".join(f"<li>{site.a(u, t)}</li>" for u, t in nav)
    site.html(
        "/", school.name, f"<h1>{esc(school.name)} Catalog {school.year}</h1><ul>{links}</ul>"
    )
    site.page("/courses/")
    n = len(school.courses())
    lis = "".join(
        f"<li>{site.a(_subject_url(d.code), f'{d.name} ({d.code})')}</li>"
        for d in school.departments
    )
    site.html(
        "/courses/",
        "Course Descriptions",
        f'<h1>Course Descriptions</h1><p class="count">{len(school.departments)} subjects, '
        f'{n} courses</p><ul id="atozindex">{lis}</ul>',
        index="subjects",
    )
    for d in school.departments:
        url = _subject_url(d.code)
        site.page(url)
        blocks = "".join(block(site, c, pre[c.id], True) for c in d.courses)
        site.html(
            url,
            d.name,
            f'<h1>{esc(d.name)} ({d.code})</h1><p class="count">{len(d.courses)} courses</p>'
            f'<div class="sc_sccoursedescs">{blocks}</div>',
            index="subject",
        )
        for c in d.courses:
            site.cite(f"course:{c.id}", url)
            site.page(_print_url(c))
            site.html(_print_url(c), c.id, block(site, c, pre[c.id], False))
            site.cite(f"course:{c.id}", _print_url(c))
    site.page("/programs/")
    lis = "".join(f"<li>{site.a(f'/programs/{g.id}/', g.name)}</li>" for g in school.programs)
    site.html(
        "/programs/",
        "Programs",
        f'<h1>Programs A-Z</h1><p class="count">{len(school.programs)} programs</p><ul>{lis}</ul>',
        index="programs",
    )
    for g in school.programs:
        url = f"/programs/{g.id}/"
        site.page(url)
        reqs = "".join(
            f'<p class="req"><strong>{esc(label)}:</strong> {esc(text)}</p>'
            for label, text in requirement_lines(p, g)
        )
        see = site.a(_subject_url(g.subject), f"{g.subject} course descriptions")
        site.html(
            url,
            g.name,
            f'<h1 class="program" data-kind="{g.kind}">{esc(g.name)}</h1>'
            f'<div class="requirements">{reqs}</div><p>See {see}.</p>',
        )
        site.cite(f"program:{g.id}", url)
    site.page("/ge/")
    cats = "".join(
        f'<div class="gecat" id="{c[0]}"><h2>{esc(c[1])} '
        f"({c[0]})</h2><p>{esc(ge_line(c))}</p></div>"
        for c in school.ge
    )
    site.html("/ge/", "General Education", f"<h1>General Education</h1>{cats}")
    site.cite("ge", "/ge/")
    news(site, school, "/news")
    site.page("/archive/")
    old = school.departments[:2]
    lis = "".join(
        f"<li>{site.a(f'/archive/2019-20/courses/{d.code.lower()}/', f'{d.name} (2019-20)')}</li>"
        for d in old
    )
    site.html("/archive/", "Archive", f"<h1>Archived catalogs</h1><ul>{lis}</ul>")
    for d in old:
        url = f"/archive/2019-20/courses/{d.code.lower()}/"
        site.page(url)
        blocks = "".join(block(site, c, "", False) for c in d.courses[:5])
        site.html(
            url,
            f"{d.name} 2019-20",
            '<p class="archived">Archived catalog (2019-20). This is not the current catalog.</p>'
            f"{blocks}",
        )
    return site
