"""Parsed real prerequisite spans as clause records: KnowPlan, "Deterministic-first parsing"
(the clause model may also learn from real spans the grammar typed).

A real string becomes a record only when the deterministic grammar types all of it and the typed
clause is span-constrained; strings listed in `exclude` (held-out evaluation strings) never
become records. St. Olaf's prerequisite strings are the transfer test (data/catalogs/
stolaf-prereqs): they must never be given here, and `pathwise catalog clause-model train` gives
no real strings at all.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

from catalogbrowse.prereq import parse_prereq
from data_export.clauses.records import build_record


def read_strings(path: Path) -> list[str]:
    """Prerequisite strings from a course-data term file (JSON list of records with a
    `prerequisites` field), a JSONL file of {"text": ...}, or plain text (one per line)."""
    raw = Path(path).read_text()
    if path.suffix == ".json":
        data = json.loads(raw)
        return [" ".join(str(r["prerequisites"]).split()) for r in data if r.get("prerequisites")]
    if path.suffix == ".jsonl":
        return [json.loads(x)["text"] for x in raw.splitlines() if x.strip()]
    return [x.strip() for x in raw.splitlines() if x.strip()]


def real_records(
    paths: list[Path], exclude: set[str], layout: str, prefix: str = "real"
) -> tuple[list[dict], Counter]:
    counts: Counter = Counter()
    out, seen = [], set()
    for path in paths:
        for text in read_strings(path):
            if text in seen:
                counts["duplicate"] += 1
                continue
            seen.add(text)
            if text in exclude:
                counts["held_out"] += 1
                continue
            res = parse_prereq(text)
            if res.unresolved or res.clause.prerequisite is None:
                counts["not_typed"] += 1
                continue
            tid = "real-" + hashlib.sha256(text.encode()).hexdigest()[:16]
            try:
                rid = f"{prefix}-{len(out):06d}"
                out.append(build_record(text, res.clause, tid, rid, layout, kind="real"))
            except ValueError:
                counts["not_span_constrained"] += 1
                continue
            counts["records"] += 1
    return out, counts
