"""Courses from observed St. Olaf term files: KnowPlan, "Problem Formulation" (J_course with
provenance). Offerings come from where sections actually appear; credits, levels, GE codes
and prerequisite prose from each term's own records."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from planner.documents import (
    AllOf,
    CalendarTerm,
    Course,
    Expr,
    Offering,
    Provenance,
    Unsupported,
)
from planner.stolaf.aliases import Departments
from planner.stolaf.prose import ProseContext, parse_prereq
from planner.term_files import SEASONS, TermFileError, TermRecord, read_term_file, term_id_of

SOURCE_DIR = "stolaf-courses"


@dataclass
class TermData:
    id: str
    file: str  # source id, e.g. stolaf-courses/terms-20141.json
    raw: str
    records: list[TermRecord]


@dataclass
class CourseIndex:
    """What requirement files may select courses by (department, level, number, GE codes)."""

    ids: set[str] = field(default_factory=set)
    departments: dict[str, list[str]] = field(default_factory=dict)  # canonical codes
    level: dict[str, int] = field(default_factory=dict)
    ge: dict[str, set[str]] = field(default_factory=dict)  # course -> codes held in every term
    ge_partial: Counter[str] = field(default_factory=Counter)  # code -> courses left out

    def number(self, cid: str) -> int:
        return int(re.sub(r"\D", "", cid.rsplit(" ", 1)[1])[:3])

    def ge_pools(self) -> dict[str, list[str]]:
        pools: dict[str, set[str]] = defaultdict(set)
        for cid, codes in self.ge.items():
            for g in codes:
                pools[g].add(cid)
        return {g: sorted(cs) for g, cs in pools.items()}


def calendar_term(tid: str) -> CalendarTerm:
    year, sem = int(tid[:4]), int(tid[4])
    season = SEASONS.get(sem, f"term{sem}")
    label = f"{season.title()} {year if season == 'fall' else year + 1}"
    return CalendarTerm(id=tid, season=season, year=year, label=label)


def read_terms(directory: Path, term_ids: list[str], deps: Departments) -> list[TermData]:
    """Read and check each term file; an unknown department stops with file and record."""
    out = []
    for tid in term_ids:
        path = directory / f"terms-{tid}.json"
        if not path.exists():
            raise TermFileError(f"{path}: term file not found")
        raw, records = read_term_file(path)
        for i, r in enumerate(records):
            if deps.resolve(r.department) is None:
                raise TermFileError(
                    f"{path}: record {i} (clbid {r.clbid}): field 'department': unknown "
                    f"department {r.department!r} (not in the data-mappings or departments.yaml)"
                )
        assert term_id_of(path) == tid
        out.append(TermData(tid, f"{SOURCE_DIR}/{path.name}", raw, records))
    return out


def _main(records: list[TermRecord]) -> list[TermRecord]:
    """Sections that carry the course (labs carry 0 credits and often no GE code)."""
    main = [r for r in records if r.type != "Lab"]
    return main or records


def build_index(terms: list[TermData], deps: Departments, revisions: bool = True) -> CourseIndex:
    """revisions=False: GE codes only from the records' own field (fall 2025, whose records
    keep the codes of the GE system St. Olaf left only in their revision history)."""
    idx = CourseIndex()
    per: dict[str, dict[str, list[TermRecord]]] = defaultdict(lambda: defaultdict(list))
    for td in terms:
        for r in td.records:
            per[r.course_id][td.id].append(r)
    for cid, by_term in per.items():
        if not any(r.credits >= 0 for rs in by_term.values() for r in rs):
            continue  # no section states its credits (upstream writes -1): not a course here
        idx.ids.add(cid)
        last = by_term[max(by_term)][0]
        idx.departments[cid] = deps.resolve(last.department)[0]
        idx.level[cid] = last.level
        # A GE code counts only if every (non-lab) section of every term carried it.
        code_sets = [set(r.gereqs(revisions)) for rs in by_term.values() for r in _main(rs)]
        held = set.intersection(*code_sets) if code_sets else set()
        idx.ge[cid] = held
        for g in set().union(*code_sets) - held:
            idx.ge_partial[g] += 1
    return idx


def _norm_title(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


def build_courses(
    terms: list[TermData],
    deps: Departments,
    idx: CourseIndex,
    unsupported: Callable[[str, str, str, Provenance], Unsupported],
    observed: bool,
) -> list[Course]:
    """One course per department+number. observed=True: offerings per term (calendar)."""
    per: dict[str, dict[str, list[TermRecord]]] = defaultdict(lambda: defaultdict(list))
    where: dict[str, TermData] = {td.id: td for td in terms}
    for td in terms:
        for r in td.records:
            per[r.course_id][td.id].append(r)
    titles = {
        cid: {_norm_title(r.title or r.name) for rs in by.values() for r in rs}
        for cid, by in per.items()
    }
    pools = idx.ge_pools()
    out = []
    for cid in sorted(idx.ids):
        by_term = per[cid]
        tids = sorted(by_term)
        written = cid.rsplit(" ", 1)[0]
        codes, notes = deps.resolve(written)
        aliases = list(notes)
        exclusions: list[str] = []
        prereq: dict[str, Expr | None] = {}
        prov: dict[str, Provenance] = {}
        for tid in tids:
            main = _main(by_term[tid])
            rec = next((r for r in main if isinstance(r.prerequisites, str)), main[0])
            td = where[tid]
            at = td.raw.find(f'"clbid": "{rec.clbid}"')
            prov[tid] = Provenance(
                source=td.file,
                start=max(at, 0),
                end=max(at, 0) + len(rec.clbid) + 11,
                record=f"{tid}:{rec.clbid}",
            )
            text = rec.prerequisites if isinstance(rec.prerequisites, str) else ""
            ctx = ProseContext(
                deps,
                idx.ids,
                pools,
                codes[0],
                lambda clause, kind, p=prov[tid], c=cid: unsupported(clause, kind, c, p),
                own_id=cid,
            )
            prereq[tid] = parse_prereq(text, ctx) if text.strip() else None
            aliases += ctx.aliases
            exclusions += [e for e in ctx.exclusions if e != cid and e in idx.ids]
        stated = [t for t in tids if any(r.credits >= 0 for r in by_term[t])]
        last = tids[-1]
        lead = _main(by_term[last])[0]
        credits = Counter(max(r.credits for r in by_term[t]) for t in stated)
        units = max(credits, key=lambda u: (credits[u], u))
        desc = next(
            (r.description for t in reversed(tids) for r in by_term[t] if r.description), ""
        )
        cross = sorted(
            f"{code} {cid.rsplit(' ', 1)[1]}"
            for code in codes
            if "/" in written
            and f"{code} {cid.rsplit(' ', 1)[1]}" in titles
            and titles[f"{code} {cid.rsplit(' ', 1)[1]}"] & titles[cid]
        )
        base = prereq[last]
        offerings = None
        if observed:
            offerings = []
            for tid in tids:
                own = prereq[tid]
                differs = _dump(own) != _dump(base)
                offerings.append(
                    Offering(
                        term=tid,
                        provenance=prov[tid],
                        prerequisite=(own if own is not None else AllOf(items=[]))
                        if differs
                        else None,
                    )
                )
        course_prov = prov[last].model_copy(update={"aliases": sorted(set(aliases))})
        out.append(
            Course(
                id=cid,
                title=lead.title or lead.name,
                units=units,
                department=codes[0],
                departments=codes if len(codes) > 1 else [],
                level=lead.level,
                description=" ".join(desc) if isinstance(desc, list) else str(desc),
                prerequisite=base,
                cross_listings=cross,
                exclusions=sorted(set(exclusions)),
                offerings=offerings,
                provenance=course_prov,
            )
        )
    return out


def _dump(e: Expr | None) -> str:
    return "" if e is None else e.model_dump_json(exclude={"provenance"})
