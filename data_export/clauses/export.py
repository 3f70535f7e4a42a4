"""Clause-to-AST dataset export: KnowPlan, "Deterministic-first parsing" (span/enum/AST records).

Generated clauses are grouped by AST (template id) for the hash split, so prose variants of one
AST never straddle train and eval; output is a DatasetDict plus manifest, written atomically.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.outputs import atomic_dir, refuse_existing, write_json
from data_export import EXPORTER_VERSION
from data_export.clauses.generator import generate
from data_export.clauses.records import CLAUSE_SYSTEM_PROMPT, COLUMNS, build_record
from data_export.dataset import save_splits
from data_export.split import (
    DEFAULT_EVAL_FRACTION,
    DEFAULT_SEED,
    EVAL,
    TRAIN,
    assign,
    split_warnings,
)
from planner.clause_ast import clause_json_schema

log = logging.getLogger(__name__)


@dataclass
class ClauseExportConfig:
    out: Path
    n: int = 5000
    seed: int = 0  # generator seed
    variants: int = 2  # prose renderings per AST
    eval_fraction: float = DEFAULT_EVAL_FRACTION
    split_seed: int = DEFAULT_SEED
    overwrite: bool = False
    real_spans: list[Path] | None = None  # real prerequisite strings the grammar types fully
    exclude: Path | None = None  # held-out strings (JSONL {"text"}) that must not be trained on


def features():
    from datasets import Features, List, Value

    cols = {
        "messages": List({"role": Value("string"), "content": Value("string")}),
        "base_task_id": Value("string"),
        "record_id": Value("string"),
        "span": Value("string"),
        "identifiers": List(Value("string")),
        "target": Value("string"),
        "style": List(Value("string")),
    }
    assert tuple(cols) == COLUMNS
    return Features(cols)


def export_clauses(
    cfg: ClauseExportConfig, progress: Callable[[str, int], None] | None = None
) -> dict[str, Any]:
    t0 = time.perf_counter()
    progress = progress or (lambda stage, n: None)
    out = Path(cfg.out)
    refuse_existing(out, cfg.overwrite, "--force")
    records = []
    for i, g in enumerate(generate(cfg.n, cfg.seed, cfg.variants)):
        rec = build_record(g.span, g.clause, g.template_id, f"s{cfg.seed}-{i:07d}", g.style)
        rec["_split"] = assign(g.template_id, cfg.eval_fraction, cfg.split_seed)
        records.append(rec)
        progress("generate", 1)
    real_counts: Counter = Counter()
    if cfg.real_spans:
        from data_export.clauses.real import read_strings, real_records

        held = set(read_strings(Path(cfg.exclude))) if cfg.exclude else set()
        extra, real_counts = real_records([Path(p) for p in cfg.real_spans], held)
        for rec in extra:
            rec["_split"] = assign(rec["base_task_id"], cfg.eval_fraction, cfg.split_seed)
            records.append(rec)
            progress("generate", 1)
    n = Counter(r["_split"] for r in records)
    groups = {s: {r["base_task_id"] for r in records if r["_split"] == s} for s in (TRAIN, EVAL)}
    train_spans = {r["span"] for r in records if r["_split"] == TRAIN}
    eval_spans = [r["span"] for r in records if r["_split"] == EVAL]
    overlap = sum(s in train_spans for s in eval_spans)
    warnings = split_warnings(
        n[TRAIN], n[EVAL], len(groups[TRAIN]) + len(groups[EVAL]), cfg.eval_fraction
    )
    for w in warnings:
        log.warning(w)
    root_kinds = Counter(
        json.loads(r["target"])["prerequisite"]["kind"]
        if json.loads(r["target"])["prerequisite"]
        else "none"
        for r in records
    )
    styles = Counter(s.split(":")[0] for r in records for s in r["style"])
    schema = json.dumps(clause_json_schema(), sort_keys=True)
    manifest: dict[str, Any] = {
        "kind": "clause_to_ast",
        "exporter_version": EXPORTER_VERSION,
        "generator": {"seed": cfg.seed, "n": cfg.n, "variants": cfg.variants},
        "columns": list(COLUMNS),
        "system_prompt_sha256": hashlib.sha256(CLAUSE_SYSTEM_PROMPT.encode()).hexdigest(),
        "clause_schema_sha256": hashlib.sha256(schema.encode()).hexdigest(),
        "corpus_sha256": hashlib.sha256(
            "".join(r["span"] + "\0" + r["target"] + "\n" for r in records).encode()
        ).hexdigest(),
        "counts": {
            "records": len(records),
            "asts": len(groups[TRAIN]) + len(groups[EVAL]),
            "root_kind": dict(sorted(root_kinds.items())),
            "style": dict(sorted(styles.items())),
            "span_violations": 0,  # build_record refuses any violating record
        },
        "split": {
            "method": "sha256(f'{seed}\\0{template_id}')[:8] / 2**64 < eval_fraction -> eval",
            "seed": cfg.split_seed,
            "eval_fraction": cfg.eval_fraction,
            "sizes": {TRAIN: n[TRAIN], EVAL: n[EVAL]},
            "base_tasks": {TRAIN: len(groups[TRAIN]), EVAL: len(groups[EVAL])},
        },
        "prompt_overlap": {
            "eval_prompts": len(eval_spans),
            "eval_prompts_in_train": overlap,
            "share": overlap / len(eval_spans) if eval_spans else 0.0,
        },
        "warnings": warnings,
        "real_spans": {
            "files": [str(p) for p in cfg.real_spans or []],
            "excluded_file": str(cfg.exclude) if cfg.exclude else None,
            "counts": dict(sorted(real_counts.items())),
        },
    }

    def rows(split: str):
        for r in records:
            if r["_split"] == split:
                progress("write", 1)
                yield {k: r[k] for k in COLUMNS}

    with atomic_dir(out, cfg.overwrite, "--force") as tmp:
        scratch = out.parent / f".{out.name}.scratch-{tmp.name.rsplit('-', 1)[-1]}"
        save_splits({s: (lambda s=s: rows(s)) for s in (TRAIN, EVAL)}, features(), tmp, scratch)
        manifest["seconds"] = round(time.perf_counter() - t0, 3)
        write_json(tmp / "manifest.json", manifest)
        write_json(tmp / "clause_schema.json", clause_json_schema())
    return manifest
