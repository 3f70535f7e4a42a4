"""Extraction metrics: KnowPlan, "Metrics" (inventory recall, typed P/R/F1, normalized AST
equivalence, masked-source recovery, opened pages, model calls).

A fact counts only when its provenance resolves: the cited page is in the snapshot, the span lies
in bounds of that page's text and the text there contains the fact (the entity's identifier).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from catalogbrowse.prereq.normalize import canonical
from envs.catalog.snapshot import Snapshot
from envs.catalog.text import UnreadablePage, page_text
from planner.documents import CatalogDocs, load_docs


class _Texts:
    def __init__(self, snap: Snapshot) -> None:
        self.snap, self.cache = snap, {}

    def get(self, url: str) -> str | None:
        if url not in self.cache:
            status, body, ctype = self.snap.get(url)
            try:
                self.cache[url] = page_text(body, ctype) if status == 200 else None
            except UnreadablePage:
                self.cache[url] = None
        return self.cache[url]


def supported(texts: _Texts, prov: Any, needle: str) -> bool:
    text = texts.get(prov.source)
    if text is None or not 0 <= prov.start <= prov.end <= len(text):
        return False
    return needle in text[prov.start : prov.end] or " ".join(
        text[prov.start : prov.end].split()
    ) == " ".join(needle.split())


def strip(expr: Any) -> Any:
    if expr is None:
        return None
    d = expr if isinstance(expr, dict) else expr.model_dump(mode="json", exclude_none=True)

    def walk(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items() if k not in ("label", "provenance")}
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x

    return canonical(walk(d))


def _facts(docs: CatalogDocs) -> set[tuple]:
    out: set[tuple] = set()
    for c in docs.courses.courses:
        out |= {
            ("course", c.id, "title", c.title),
            ("course", c.id, "units", float(c.units)),
            ("course", c.id, "department", c.department),
            ("course", c.id, "level", c.level),
        }
        out |= {("course", c.id, "cross", x) for x in c.cross_listings}
    for p in docs.programs.programs:
        out |= {("program", p.id, "name", p.name), ("program", p.id, "kind", p.kind)}
    for fw in docs.ge.frameworks:
        for cat in fw.categories:
            out |= {("ge", cat.id, "course", x) for x in cat.courses}
            out.add(("ge", cat.id, "min", cat.min_courses))
    return out


def score(gold_dir: str | Path, docs_dir: str | Path, snapshot_dir: str | Path) -> dict[str, Any]:
    gold = load_docs(gold_dir)
    got = load_docs(docs_dir)
    meta = json.loads((Path(gold_dir) / "meta.json").read_text())
    texts = _Texts(Snapshot(snapshot_dir))
    got_courses = {c.id: c for c in got.courses.courses if supported(texts, c.provenance, c.id)}
    got_programs = {
        p.id: p for p in got.programs.programs if supported(texts, p.provenance, p.name)
    }
    inventory = [f"course:{c.id}" for c in gold.courses.courses] + [
        f"program:{p.id}" for p in gold.programs.programs
    ]
    found = {f"course:{k}" for k in got_courses} | {f"program:{k}" for k in got_programs}
    hit = [k for k in inventory if k in found]
    gf, xf = _facts(gold), _facts(got)
    tp = len(gf & xf)
    precision = tp / len(xf) if xf else 0.0
    recall = tp / len(gf) if gf else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    ast_total = ast_ok = 0
    for c in gold.courses.courses if meta.get("ast_gold", True) else []:
        if c.prerequisite is None or c.id not in got_courses:
            continue
        ast_total += 1
        ast_ok += json.dumps(strip(c.prerequisite), sort_keys=True) == json.dumps(
            strip(got_courses[c.id].prerequisite), sort_keys=True
        )
    masked = meta.get("masked_entities", [])
    recovered = [k for k in masked if k in found]
    return {
        "inventory": len(inventory),
        "inventory_found": len(hit),
        "inventory_recall": len(hit) / len(inventory) if inventory else 0.0,
        "typed_precision": precision,
        "typed_recall": recall,
        "typed_f1": f1,
        "ast_total": ast_total,
        "ast_equivalent": ast_ok,
        "ast_equivalence": ast_ok / ast_total if ast_total else None,
        "masked_total": len(masked),
        "masked_recovered": len(recovered),
        "masked_recovery": len(recovered) / len(masked) if masked else None,
        "unsupported_provenance": len(got.courses.courses) - len(got_courses),
    }
