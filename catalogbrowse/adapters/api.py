"""JSON API adapter: KnowPlan, "Deterministic-first parsing" (API adapter; API access first).

Reads records by their keys (code/title/credits/prerequisite_text, id/name/requirements,
categories), lists (items + total + next cursor) and link maps; each value's span is where its
JSON encoding sits in the response text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from catalogbrowse.adapters.base import (
    COURSE_ID,
    CourseRec,
    Fact,
    GERec,
    Link,
    PageYield,
    ProgramRec,
    classify,
    resolve,
)


class _Spans:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def value(self, key: str, value: Any) -> Fact | None:
        """Span of the JSON value under `key`, searching forward from the last record."""
        enc = json.dumps(value, ensure_ascii=False)
        for pattern in (f'"{key}": {enc}', f'"{key}":{enc}'):
            at = self.text.find(pattern, self.pos)
            if at >= 0:
                start = at + len(pattern) - len(enc)
                if isinstance(value, str):
                    start, end = start + 1, start + len(enc) - 1  # inside the quotes
                else:
                    end = start + len(enc)
                self.pos = at
                return Fact(str(value), start, end)
        return None


def _course(rec: dict, sp: _Spans) -> CourseRec | None:
    code = rec.get("code")
    if not isinstance(code, str) or not COURSE_ID.fullmatch(code):
        return None
    out = CourseRec(id=sp.value("code", code), complete="prerequisite_text" in rec)
    if isinstance(rec.get("title"), str):
        out.title = sp.value("title", rec["title"])
    if isinstance(rec.get("credits"), int | float):
        out.units = sp.value("credits", rec["credits"])
    if isinstance(rec.get("description"), str):
        out.description = sp.value("description", rec["description"])
    if isinstance(rec.get("prerequisite_text"), str) and rec["prerequisite_text"]:
        out.prereq = sp.value("prerequisite_text", rec["prerequisite_text"])
    out.cross_listings = [c for c in rec.get("crosslisted_with") or [] if isinstance(c, str)]
    return out if out.id else None


def adapt(url: str, text: str) -> PageYield:
    y = PageYield("api", url, text)
    data = json.loads(text)
    sp = _Spans(text)
    if not isinstance(data, dict):
        return y
    for key, href in (data.get("links") or {}).items():
        dst = resolve(url, href) if isinstance(href, str) else None
        if dst:
            y.links.append(classify(dst, key.replace("_", " "), url))
    items = data.get("items") if isinstance(data.get("items"), list) else []
    for rec in items:
        if not isinstance(rec, dict):
            continue
        c = _course(rec, sp)
        if c is not None:
            y.courses.append(c)
            y.entries.append(f"course:{c.id.value}")
        href = resolve(url, rec["href"]) if isinstance(rec.get("href"), str) else None
        if href is None:
            continue
        if c is not None:
            y.links.append(Link(href, c.id.value, "entity", f"course:{c.id.value}"))
        elif "requirements" not in rec and isinstance(rec.get("id"), str) and "name" in rec:
            slug = "-".join(str(rec["name"]).lower().split())
            y.links.append(Link(href, str(rec["name"]), "entity", f"program:{slug}"))
            y.entries.append(f"program:{slug}")
        elif isinstance(rec.get("code"), str) and "name" in rec:
            y.links.append(
                Link(href, f"{rec['name']} courses", "section", f"subject:{rec['code']}")
            )
            y.entries.append(f"subject:{rec['code']}")
        else:
            y.links.append(classify(href, str(rec.get("title") or rec.get("name") or ""), url))
    if isinstance(data.get("next"), str):
        dst = resolve(url, data["next"])
        if dst:
            y.links.append(Link(dst, "next", "cursor"))
    if isinstance(data.get("total"), int):
        kind = "courses" if "subject" in data else ("programs" if "programs" in url else "subjects")
        y.declared[kind] = data["total"]
    c = _course(data, sp)
    if c is not None:
        y.courses.append(c)
    if isinstance(data.get("requirements"), list) and isinstance(data.get("name"), str):
        prog = ProgramRec(
            name=sp.value("name", data["name"]), kind=str(data.get("type") or "major")
        )
        for r in data["requirements"]:
            if isinstance(r, dict) and isinstance(r.get("text"), str):
                f = sp.value("text", r["text"])
                if f:
                    prog.groups.append((str(r.get("label") or "Requirements"), f))
        if prog.name:
            y.programs.append(prog)
    for cat in data.get("categories") or []:
        if isinstance(cat, dict) and isinstance(cat.get("rule"), str):
            name, rule = sp.value("name", cat.get("name")), sp.value("rule", cat["rule"])
            if name and rule:
                k = re.search(r"Complete (\d+)", rule.value)
                ids = [m.group(0) for m in COURSE_ID.finditer(rule.value)]
                y.ge.append(
                    GERec(str(cat.get("code")), name, rule, ids, int(k.group(1)) if k else 1)
                )
    return y
