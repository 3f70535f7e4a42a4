"""Convert the St. Olaf catalog data into the three documents (KnowPlan, "Problem Formulation").

Input: the StoDevX course-data term file (MIT) and the gobbldygook Hanson-format area files (MIT).
Output: courses.json, programs.json, ge.json. Prerequisite prose and Hanson clauses the
converter cannot type become explicit unsupported-policy records referenced from the AST.

    python scripts/convert_stolaf.py --src ../shared/data/catalogs --out data/catalogs/stolaf
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import yaml

from planner.documents import (
    AllOf,
    AnyOf,
    CatalogDocs,
    ChooseN,
    Consent,
    Coreq,
    Course,
    CourseRef,
    CoursesDoc,
    GECategory,
    GEDoc,
    GEFramework,
    Program,
    ProgramsDoc,
    Provenance,
    Source,
    Standing,
    Unsupported,
    UnsupportedPolicy,
    save_docs,
)

COURSES_SRC = "stolaf-courses/terms-20251.json"
# St. Olaf standing by completed credits (one course = 1.0 credit).
STANDING = {"sophomore": 7.0, "junior": 14.0, "senior": 21.0}
NUMS = {
    "zero": 0,
    "none": 0,
    "one": 1,
    "any": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_REF = re.compile(r"\b([A-Z]{2,6}(?:/[A-Z]{2,6})?)\s+(\d{3})[A-Z]?\b|\b(\d{3})[A-Z]?\b")


class Policies:
    def __init__(self) -> None:
        self.records: list[UnsupportedPolicy] = []

    def add(self, text: str, applies: str, prov: Provenance) -> Unsupported:
        pid = f"policy-{len(self.records) + 1:04d}"
        self.records.append(
            UnsupportedPolicy(id=pid, text=text.strip(), applies_to=[applies], provenance=prov)
        )
        return Unsupported(policy=pid, label=text.strip()[:80])


# --- prerequisite prose -------------------------------------------------------------------


def _refs(text: str, dept: str | None = None) -> list[str]:
    out = []
    for m in _REF.finditer(text):
        if m.group(1):
            dept = m.group(1)
            out.append(f"{dept} {m.group(2)}")
        elif dept:
            out.append(f"{dept} {m.group(3)}")
    return out


def parse_prereq(text: str, cid: str, prov: Provenance, pol: Policies):
    """Typed AST for the common shapes; anything else stays an unsupported-policy leaf."""
    t = re.sub(r"^(prerequisites?|prereq)\s*:?\s*", "", text.strip(), flags=re.I)
    t = re.sub(r"\s+", " ", t).strip().rstrip(".")
    parts = []
    for clause in re.split(r";|\.\s+", t):
        clause = clause.strip()
        if not clause:
            continue
        node = _clause(clause)
        parts.append(node if node is not None else pol.add(clause, cid, prov))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else AllOf(items=parts)


def _alt(s: str):
    s = s.strip().strip(",").strip()
    low = s.lower()
    if re.fullmatch(r"(the )?(permission|consent) of (the )?(instructor|department)", low):
        return Consent()
    m = re.fullmatch(r"(sophomore|junior|senior) standing", low)
    if m:
        return Standing(min_units=STANDING[m.group(1)], label=m.group(0))
    m = re.fullmatch(r"concurrent registration in \(or previous completion of\) (.+)", s, re.I)
    if m and len(_refs(m.group(1))) == 1:
        return Coreq(course=_refs(m.group(1))[0])
    m = re.fullmatch(r"concurrent registration in (.+)", s, re.I)
    if m and len(_refs(m.group(1))) == 1:
        return Coreq(course=_refs(m.group(1))[0])
    refs = _refs(s)
    if len(refs) == 1 and re.fullmatch(r"(completion of )?[A-Z/]{2,11} \d{3}[A-Z]?", s):
        return CourseRef(course=refs[0])
    return None


def _clause(s: str):
    """'A and B, or C' style: AND of OR-groups, with department carry-over."""
    ands = []
    for conj in re.split(r",?\s+and\s+(?:either\s+|one of\s+)?|,\s+(?=[A-Z]{2,6} \d)", s):
        alts = []
        dept = None
        for a in re.split(r",?\s+or\s+", conj):
            node = _alt(a)
            if node is None and re.fullmatch(r"\d{3}[A-Z]?", a.strip()) and dept:
                node = CourseRef(course=f"{dept} {a.strip()[:3]}")
            if node is None:
                if re.fullmatch(r"(equivalent|equivalent experience)", a.strip().lower()):
                    continue  # an OR-alternative the planner cannot use; the others remain
                return None
            if isinstance(node, CourseRef):
                dept = node.course.split()[0]
            alts.append(node)
        if not alts:
            return None
        ands.append(alts[0] if len(alts) == 1 else AnyOf(items=alts))
    return ands[0] if len(ands) == 1 else AllOf(items=ands)


# --- Hanson-format requirements -------------------------------------------------------------


class Hanson:
    def __init__(self, name: str, pol: Policies, prov: Provenance) -> None:
        self.name, self.pol, self.prov = name, pol, prov

    def requirement(self, label: str, body) -> object:
        if isinstance(body, str):
            return self.expr(body, {}, label)
        children = {k: v for k, v in body.items() if k[:1].isupper() or k[:1].isdigit()}
        kids = {k: self.requirement(k, v) for k, v in children.items()}
        if "result" not in body:
            return self.pol.add(str(body.get("message", label)), self.name, self.prov)
        node = self.expr(str(body["result"]), kids, label)
        node.label = label
        return node

    def expr(self, text: str, kids: dict, label: str):
        self.i, self.kids, self.text = 0, kids, text
        try:
            self.toks = self._tokens(text, kids)
            node = self._or()
            if self.i != len(self.toks):
                raise ValueError("trailing tokens")
            return node
        except (ValueError, IndexError):
            return self.pol.add(f"{label}: {' '.join(text.split())}", self.name, self.prov)

    def _tokens(self, text: str, kids: dict) -> list[tuple[str, str]]:
        s = " ".join(text.split())
        for k in sorted(kids, key=len, reverse=True):
            s = re.sub(rf"(?<![\w-]){re.escape(k)}(?![\w-])", f" @{list(kids).index(k)} ", s)
        out: list[tuple[str, str]] = []
        dept = None
        pat = re.compile(
            r"@(\d+)|([A-Z]{2,6}(?:/[A-Z]{2,6})?)\s+(\d{3})[A-Z]?(?:\.[\w*.]+)?"
            r"|(\d{3})[A-Z]?(?:\.[\w*.]+)?|(\w+) of|([&|(),])|(\S+)"
        )
        for m in pat.finditer(s):
            if m.group(1):
                out.append(("ref", list(kids)[int(m.group(1))]))
            elif m.group(2):
                dept = m.group(2)
                out.append(("course", f"{dept} {m.group(3)}"))
            elif m.group(4):
                if dept is None:
                    raise ValueError("number without department")
                out.append(("course", f"{dept} {m.group(4)}"))
            elif m.group(5):
                out.append(("of", m.group(5).lower()))
            elif m.group(6):
                out.append(("op", m.group(6)))
            else:
                out.append(("word", m.group(7)))
        return out

    def _peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def _or(self):
        items = [self._and()]
        while self._peek() == ("op", "|"):
            self.i += 1
            items.append(self._and())
        return items[0] if len(items) == 1 else AnyOf(items=items)

    def _and(self):
        items = [self._atom()]
        while self._peek() == ("op", "&"):
            self.i += 1
            items.append(self._atom())
        return items[0] if len(items) == 1 else AllOf(items=items)

    def _atom(self):
        kind, val = self.toks[self.i]
        self.i += 1
        if kind == "course":
            return CourseRef(course=val)
        if kind == "ref":
            return self.kids[val].model_copy()
        if (kind, val) == ("op", "("):
            node = self._or()
            if self.toks[self.i] != ("op", ")"):
                raise ValueError("missing )")
            self.i += 1
            return node
        if kind == "of" and val in (*NUMS, "all"):
            if self.toks[self.i] != ("op", "("):
                raise ValueError("of without (")
            self.i += 1
            items = []
            while self._peek() != ("op", ")"):
                items.append(self._or())
                if self._peek() == ("op", ","):
                    self.i += 1
            self.i += 1
            n = len(items) if val == "all" else NUMS[val]
            if val == "all":
                return AllOf(items=items)
            return AnyOf(items=items) if n == 1 else ChooseN(n=n, items=items)
        raise ValueError(f"unsupported token {val}")


def convert(src: Path) -> CatalogDocs:
    raw_path = src / COURSES_SRC
    raw = raw_path.read_text()
    records = json.loads(raw)
    pol_c, pol_p = Policies(), Policies()
    courses: dict[str, Course] = {}
    gereqs: dict[str, set[str]] = {}
    for r in records:
        cid = f"{r['department']} {r['number']}"
        at = raw.find(f'"clbid": "{r["clbid"]}"')
        prov = Provenance(source=COURSES_SRC, start=max(at, 0), end=max(at, 0) + 24)
        for g in r.get("gereqs") or []:
            gereqs.setdefault(g, set()).add(cid)
        if cid in courses:
            continue
        pre = r.get("prerequisites")
        desc = r.get("description") or ""
        courses[cid] = Course(
            id=cid,
            title=r.get("title") or r["name"],
            units=float(r["credits"]) if float(r["credits"]) > 0 else 0.25,
            department=r["department"],
            level=int(r.get("level") or 0),
            description=" ".join(desc) if isinstance(desc, list) else str(desc),
            prerequisite=parse_prereq(pre, cid, prov, pol_c) if pre else None,
            provenance=prov,
        )
    src_c = Source(
        id=COURSES_SRC,
        uri="https://github.com/StoDevX/course-data",
        license="MIT",
        title="St. Olaf course data, term 20251",
    )
    pol_c.records.append(
        UnsupportedPolicy(
            id="policy-offerings",
            applies_to=[],
            text="Only the fall 2025 schedule is observed; offerings in other terms are "
            "unknown, so every course is treated as offered every term.",
            provenance=Provenance(source=COURSES_SRC, start=0, end=1),
        )
    )
    programs = []
    area = src / "stolaf-degree-requirements"
    for sub in ("majors", "concentrations"):
        for f in sorted((area / sub).glob("*.yaml")):
            text = f.read_text()
            data = yaml.safe_load(text)
            rel = f"stolaf-degree-requirements/{sub}/{f.name}"
            prov = Provenance(source=rel, start=0, end=len(text))
            h = Hanson(f.stem, pol_p, prov)
            kids = {
                k: h.requirement(k, v)
                for k, v in data.items()
                if k[:1].isupper() or k[:1].isdigit()
            }
            req = h.expr(str(data["result"]), kids, data["name"])
            programs.append(
                Program(
                    id=f.stem,
                    name=str(data["name"]),
                    kind="major" if sub == "majors" else "concentration",
                    requirement=req,
                    double_count={
                        "within_program": bool(data.get("children share courses", False))
                    },
                    provenance=prov,
                )
            )
    src_p = Source(
        id="stolaf-degree-requirements",
        uri="https://github.com/hawkrives/gobbldygook-area-data",
        license="MIT",
    )
    cats = [
        GECategory(
            id=g,
            name=f"St. Olaf GE code {g}",
            courses=sorted(cs),
            provenance=Provenance(source=COURSES_SRC, start=0, end=1),
        )
        for g, cs in sorted(gereqs.items())
    ]
    fw = GEFramework(
        id="stolaf-ge-observed",
        name="GE codes observed in fall 2025 sections",
        categories=cats,
        provenance=Provenance(source=COURSES_SRC, start=0, end=1),
    )
    return CatalogDocs(
        courses=CoursesDoc(
            institution="St. Olaf College",
            catalog_year="2025-26",
            standing_levels=STANDING,
            sources=[src_c],
            courses=sorted(courses.values(), key=lambda c: c.id),
            unsupported_policies=pol_c.records,
        ),
        programs=ProgramsDoc(
            institution="St. Olaf College",
            sources=[src_p],
            programs=programs,
            unsupported_policies=pol_p.records,
        ),
        ge=GEDoc(institution="St. Olaf College", sources=[src_c], frameworks=[fw]),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=Path("../shared/data/catalogs"))
    ap.add_argument("--out", type=Path, default=Path("data/catalogs/stolaf"))
    args = ap.parse_args()
    docs = convert(args.src)
    save_docs(docs, args.out)
    n_pol = len(docs.unsupported())
    print(
        f"{len(docs.courses.courses)} courses, {len(docs.programs.programs)} programs, "
        f"{len(docs.ge.frameworks[0].categories)} GE categories, {n_pol} unsupported policies "
        f"-> {args.out}"
    )


if __name__ == "__main__":
    main()
