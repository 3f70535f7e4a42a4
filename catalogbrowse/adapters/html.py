"""HTML adapters: KnowPlan, "Deterministic-first parsing" (DOM and structured-record adapters).

`records` reads catalog HTML that publishes each course as one record element (CourseLeaf-style
`courseblock`); `dom` reads everything else by its structure: detail pages with labelled fields,
course tables and lists, program pages, GE blocks. Both use selectolax (lexbor) and locate each
fact's text in the page text, walking forward so repeated strings get their own span.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser

from catalogbrowse.adapters.base import (
    COURSE_ID,
    CourseRec,
    Fact,
    GERec,
    PageYield,
    ProgramRec,
    classify,
    counts,
    find,
    resolve,
)

PREREQ_LABEL = re.compile(
    r"^(prerequisites?|prereq|before you enroll|requirements? to enroll)", re.I
)
CROSS_LABEL = re.compile(r"^(cross-?listed( as| with)?|also listed as)\s*:?\s*", re.I)


class _Cursor:
    """Forward search in the page text: each element's text is found after the previous one."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def fact(self, node_text: str, value: str | None = None) -> Fact | None:
        f = find(self.text, node_text, self.pos) or find(self.text, node_text)
        if f is None:
            return None
        self.pos = f.start
        if value is not None and value != node_text:
            inner = find(self.text, value, f.start)
            return inner if inner and inner.end <= f.end else Fact(value, f.start, f.end)
        return f


def _t(node) -> str:
    return node.text(deep=True, separator="", strip=False)


def _links(tree, url: str, y: PageYield) -> None:
    subject = None  # "CS 101 or 102": a bare number linked after a course id names that subject
    for a in tree.css("a[href]"):
        dst = resolve(url, a.attributes.get("href") or "")
        if not dst or dst == url:
            continue
        link = classify(dst, _t(a), url)
        if link.entity and link.entity.startswith("course:"):
            subject = link.entity[7:].split()[0]
        elif subject and re.fullmatch(r"\d{3}[A-Z]?", link.text):
            link.role, link.entity = "entity", f"course:{subject} {link.text}"
        y.links.append(link)
        if link.entity and (
            link.entity.startswith("subject:") or link.entity.startswith("program:")
        ):
            y.entries.append(link.entity)
    for row in tree.css("table.departments tr"):
        tds = row.css("td")
        a = tds[0].css_first("a[href]") if tds else None
        dst = resolve(url, a.attributes.get("href") or "") if a is not None else None
        if dst and len(tds) > 1 and re.fullmatch(r"[A-Z]{2,5}", _t(tds[1]).strip()):
            code = _t(tds[1]).strip()
            for link in y.links:
                if link.url == dst:
                    link.role, link.entity = "section", f"subject:{code}"
            y.entries.append(f"subject:{code}")


def _programs(tree, cur: _Cursor, y: PageYield) -> None:
    for h in tree.css("h1.program, dl.programs dt"):
        name = cur.fact(_t(h).strip())
        if name is None:
            continue
        prog = ProgramRec(name=name, kind=h.attributes.get("data-kind") or "major")
        body = h.next if h.tag == "dt" else h.parent
        while body is not None and body.tag not in ("dd", "body", "div"):
            body = body.next
        if body is None:
            continue
        label = "Requirements"
        for node in body.css("h3, p"):
            text = _t(node).strip()
            if node.tag == "h3":
                label = text
                continue
            m = re.match(r"^([A-Z][\w &/-]{1,40}):\s*(.+)$", text, re.S)
            lab, req = (m.group(1), m.group(2)) if m else (label, text)
            if COURSE_ID.search(req):
                f = cur.fact(text, req)
                if f:
                    prog.groups.append((lab.strip(), f))
        y.programs.append(prog)


def _ge(tree, cur: _Cursor, y: PageYield) -> None:
    rows = [(d.css_first("h2"), d.css_first("p")) for d in tree.css("div.gecat")]
    rows += [tuple(r.css("td")[:2]) for r in tree.css("table.core tr")]
    for head, rule in rows:
        if head is None or rule is None:
            continue
        m = re.match(r"^(.+?) \(([A-Z]{1,5})\)$", _t(head).strip())
        if not m:
            continue
        name = cur.fact(m.group(1))
        r = cur.fact(_t(rule).strip())
        if name is None or r is None:
            continue
        k = re.search(r"Complete (\d+)", r.value)
        y.ge.append(
            GERec(
                m.group(2),
                name,
                r,
                [c.group(0) for c in COURSE_ID.finditer(r.value)],
                int(k.group(1)) if k else 1,
            )
        )


def _common(url: str, text: str, html: str, adapter: str) -> tuple[PageYield, object, _Cursor]:
    tree = LexborHTMLParser(html)
    y = PageYield(adapter, url, text)
    y.official = tree.css_first("p.archived") is None
    _links(tree, url, y)
    y.declared = counts(text, " ".join(_t(n) for n in tree.css(".count")))
    return y, tree, _Cursor(text)


def records(url: str, text: str, html: str) -> PageYield:
    """CourseLeaf-style record blocks: title line, description, extra lines."""
    y, tree, cur = _common(url, text, html, "records")
    for block in tree.css("div.courseblock"):
        title_node = block.css_first(".courseblocktitle")
        if title_node is None:
            continue
        head = _t(title_node).strip()
        m = re.match(
            r"^([A-Z]{2,5} \d{3}[A-Z]?)\.\s+(.+?)\.\s+(\d+(?:\.\d+)?) (Units?|Credits?)\.?$", head
        )
        if not m:
            continue
        cur.fact(head)
        rec = CourseRec(
            id=cur.fact(head, m.group(1)),
            title=cur.fact(head, m.group(2)),
            units=cur.fact(head, m.group(3)),
            complete=True,
        )
        desc = block.css_first(".courseblockdesc")
        if desc is not None:
            rec.description = cur.fact(_t(desc).strip())
        for extra in block.css(".courseblockextra"):
            t = _t(extra).strip()
            cm = CROSS_LABEL.match(t)
            if cm:
                rec.cross_listings = [c.group(0) for c in COURSE_ID.finditer(t)]
            elif t:
                rec.prereq = cur.fact(t)
        y.courses.append(rec)
    _programs(tree, cur, y)
    _ge(tree, cur, y)
    return y


def _labelled(tree) -> dict[str, object]:
    """Field label -> value node, from <dt>/<dd> pairs and <p><strong>Label:</strong> value</p>."""
    out: dict[str, object] = {}
    for dt in tree.css("dt"):
        dd = dt.next
        while dd is not None and dd.tag != "dd":
            dd = dd.next
        if dd is not None:
            out[_t(dt).strip().rstrip(":")] = dd
    for p in tree.css("p"):
        s = p.css_first("strong")
        if s is not None and _t(s).strip().endswith(":"):
            out[_t(s).strip().rstrip(":")] = p
    return out


def dom(url: str, text: str, html: str) -> PageYield:
    y, tree, cur = _common(url, text, html, "dom")
    head = tree.css_first("h1#course_preview_title, h2")
    m = COURSE_ID.match(_t(head).strip()) if head is not None else None
    if head is not None and m:
        h = _t(head).strip()
        title = re.sub(r"^[A-Z]{2,5} \d{3}[A-Z]?\s*[-:–]\s*", "", h)
        rec = CourseRec(id=cur.fact(h, m.group(0)), title=cur.fact(h, title), complete=True)
        fields = _labelled(tree)
        for label, node in fields.items():
            val = _t(node).strip()
            if label.lower() in ("credits", "units"):
                num = re.search(r"\d+(?:\.\d+)?", val)
                rec.units = cur.fact(val, num.group(0)) if num else None
            elif label.lower() == "description":
                rec.description = cur.fact(val)
            elif PREREQ_LABEL.match(label):
                rec.prereq = cur.fact(val)
            elif CROSS_LABEL.match(label + ":"):
                rec.cross_listings = [c.group(0) for c in COURSE_ID.finditer(val)]
        for p in tree.css("p.prereq"):
            rec.prereq = cur.fact(_t(p).strip())
        for p in tree.css("p"):
            t = _t(p).strip()
            if CROSS_LABEL.match(t):
                rec.cross_listings = [c.group(0) for c in COURSE_ID.finditer(t)]
            elif rec.description is None and t and not p.css_first("strong, a"):
                rec.description = cur.fact(t)
        y.courses.append(rec)
    for row in tree.css("table.courses tr"):
        tds = row.css("td")
        if len(tds) < 3:
            continue
        code = _t(tds[0]).strip()
        if not COURSE_ID.fullmatch(code):
            continue
        y.courses.append(
            CourseRec(
                id=cur.fact(code),
                title=cur.fact(_t(tds[1]).strip()),
                units=cur.fact(_t(tds[2]).strip()),
            )
        )
        y.entries.append(f"course:{code}")
    for li in tree.css("ul.courses li"):
        t = _t(li).strip()
        m = re.match(r"^([A-Z]{2,5} \d{3}[A-Z]?) - (.+)$", t)
        if m:
            cur.fact(t)
            y.courses.append(CourseRec(id=cur.fact(t, m.group(1)), title=cur.fact(t, m.group(2))))
            y.entries.append(f"course:{m.group(1)}")
    _programs(tree, cur, y)
    _ge(tree, cur, y)
    return y
