"""PDF bulletins: KnowPlan, "Dense-6" (PDF source family).

A landing page links one bulletin PDF per subject plus programs and GE PDFs (written with fpdf2);
older bulletins are archived decoys, one link is a dead PDF and one "PDF" is an HTML error page.
"""

from __future__ import annotations

from datetime import UTC, datetime

from fpdf import FPDF

from envs.catalog.synth.common import (
    ge_line,
    news,
    prose_for,
    requirement_lines,
    units_text,
)
from envs.catalog.synth.school import School
from envs.catalog.synth.site import Site, esc

PDF = "application/pdf"


def write_pdf(title: str, blocks: list[list[str]]) -> bytes:
    """Blocks of lines; a block's first line is bold. Deterministic (fixed creation date)."""
    doc = FPDF(format="letter")
    doc.set_creation_date(datetime(2025, 8, 1, tzinfo=UTC))
    doc.set_title(title)
    doc.add_page()
    doc.set_font("Helvetica", "B", 14)
    doc.multi_cell(0, 8, title, new_x="LMARGIN", new_y="NEXT")
    for lines in blocks:
        doc.ln(2)
        for i, line in enumerate(lines):
            doc.set_font("Helvetica", "B" if i == 0 else "", 10)
            doc.multi_cell(0, 5, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(doc.output())


def render(school: School, hidden: set[str]) -> Site:
    site = Site(root="/bulletin/", hidden=hidden)
    p, pre = prose_for(school)
    y = school.year[:4]
    subj = {d.code: f"/bulletin/{y}/courses-{d.code.lower()}.pdf" for d in school.departments}
    site.page("/bulletin/")
    lis = "".join(
        f"<li>{site.a(u, f'{d.name} courses ({d.code})')}</li>"
        for d, u in zip(school.departments, subj.values(), strict=True)
    )
    archived = [f"/bulletin/2019/courses-{d.code.lower()}.pdf" for d in school.departments[:3]]
    old = "".join(
        f"<li>{site.a(u, '2019 bulletin: ' + d.code)}</li>"
        for u, d in zip(archived, school.departments, strict=False)
    )
    site.html(
        "/bulletin/",
        school.name,
        f"<h1>{esc(school.name)} Academic Bulletin {school.year}</h1>"
        f'<p class="count">Course bulletins for {len(school.departments)} '
        f"subjects:</p><ul>{lis}</ul>"
        f"<ul><li>{site.a(f'/bulletin/{y}/programs.pdf', 'Degree programs')}</li>"
        f"<li>{site.a(f'/bulletin/{y}/general-education.pdf', 'General education')}</li>"
        f"<li>{site.a(f'/bulletin/{y}/courses-interdisciplinary.pdf', 'Interdisciplinary')}</li>"
        f"<li>{site.a(f'/bulletin/{y}/addendum.pdf', 'Bulletin addendum')}</li></ul>"
        f"<h2>Archived bulletins</h2><ul>{old}</ul><p>{site.a('/news/', 'News')}</p>",
        index="subjects",
    )
    for d in school.departments:
        url = subj[d.code]
        blocks = []
        for c in d.courses:
            lines = [f"{c.id} {c.title} ({units_text(c)})", c.description]
            if pre[c.id]:
                # A bulletin has no markup to set the requirement apart, so it always says so.
                text = (
                    pre[c.id]
                    if pre[c.id].lower().startswith("prereq")
                    else f"Prerequisite: {pre[c.id]}"
                )
                lines.append(text)
            if c.cross_listings:
                lines.append(f"Cross-listed: {', '.join(c.cross_listings)}.")
            blocks.append(lines)
            site.cite(f"course:{c.id}", url)
        site.page(url)
        site.add(
            url,
            write_pdf(f"{d.name} ({d.code}) Courses {school.year}", blocks),
            PDF,
            index="subject",
        )
    for u, d in zip(archived, school.departments[:3], strict=True):
        site.page(u)
        blocks = [[f"{c.id} {c.title} ({units_text(c)})", c.description] for c in d.courses[:4]]
        site.add(u, write_pdf(f"ARCHIVED 2019 bulletin - not current. {d.name}", blocks), PDF)
    progs = f"/bulletin/{y}/programs.pdf"
    site.page(progs)
    blocks = []
    for g in school.programs:
        blocks.append(
            [f"Program: {g.name} [{g.kind}]"]
            + [f"{lab}: {t}" for lab, t in requirement_lines(p, g)]
        )
        site.cite(f"program:{g.id}", progs)
    site.add(progs, write_pdf(f"Degree Programs {school.year}", blocks), PDF)
    gurl = f"/bulletin/{y}/general-education.pdf"
    site.page(gurl)
    site.add(
        gurl,
        write_pdf("General Education", [[f"{c[1]} ({c[0]})", ge_line(c)] for c in school.ge]),
        PDF,
    )
    site.cite("ge", gurl)
    # A "PDF" link that serves an HTML error page (a bad page, not a crash).
    site.page(f"/bulletin/{y}/courses-interdisciplinary.pdf")
    site.html(
        f"/bulletin/{y}/courses-interdisciplinary.pdf", "Error", "<h1>Document unavailable</h1>"
    )
    news(site, school, "/news")
    return site
