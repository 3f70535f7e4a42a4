"""Clause-to-AST dataset export: KnowPlan, "Deterministic-first parsing" (span/enum/AST records).

Two splits: `train` from the generator's training families and `eval` from its held-out families,
whose phrasings and subjects training never sees (generator.py); an eval span that happens to
equal a training span is dropped. `eval_families="training"` draws the eval split from the
training families instead (fresh draws, same phrasings): how well a model learned what it was
shown, to set beside the held-out score. Output is a DatasetDict plus manifest, written atomically.
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
from typing import Any, Literal, get_args

from common.outputs import atomic_dir, refuse_existing, write_json
from data_export import EXPORTER_VERSION
from data_export.clauses.generator import (
    HELD_OUT_FAMILIES,
    TRAIN_FAMILIES,
    generate,
    subject_names,
)
from data_export.clauses.records import COLUMNS, build_record
from data_export.dataset import save_splits
from data_export.split import EVAL, TRAIN
from planner.clause_layout import DEFAULT_LAYOUT, decoding_schema, system_prompt

log = logging.getLogger(__name__)

EvalFamilies = Literal["held_out", "training"]


@dataclass
class ClauseExportConfig:
    out: Path
    n: int = 5000  # training records
    eval_n: int = 400  # held-out-family records
    leaf_share: float = 0.0  # training records that are one leaf, as a partial parse asks
    seed: int = 0
    layout: str = DEFAULT_LAYOUT
    overwrite: bool = False
    real_spans: list[Path] | None = None  # real strings the grammar types fully (never St. Olaf's)
    exclude: Path | None = None  # held-out strings (JSONL {"text"}) that must not be trained on
    eval_families: EvalFamilies = "held_out"  # "training": the eval split from the seen families


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
        "family": Value("int32"),
        "kind": Value("string"),
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
    system_prompt(cfg.layout)  # an unknown layout fails before any work
    if cfg.eval_families not in get_args(EvalFamilies):
        raise ValueError(f"eval_families: {cfg.eval_families!r} is not held_out or training")
    if cfg.eval_families == "held_out":
        eval_fams = HELD_OUT_FAMILIES
        eval_from = (
            f"held-out families {', '.join(map(str, HELD_OUT_FAMILIES))} "
            "(phrasings and subjects never in train)"
        )
    else:
        eval_fams = TRAIN_FAMILIES
        eval_from = "the same training families at the next seed (spans in train dropped)"
    subjects = {name: code for code, name in subject_names().items()}
    records: dict[str, list[dict[str, Any]]] = {TRAIN: [], EVAL: []}
    for split, n, fams, seed in (
        (TRAIN, cfg.n, TRAIN_FAMILIES, cfg.seed),
        (EVAL, cfg.eval_n, eval_fams, cfg.seed + 1),
    ):
        # The held-out families keep the whole-span mix, so their scores compare across models.
        leaves = cfg.leaf_share if split == TRAIN else 0.0
        for i, g in enumerate(generate(n, seed, fams, leaves)):
            rec = build_record(
                g.span, g.clause, g.template_id, f"{split}-s{seed}-{i:07d}", cfg.layout,
                subjects, g.style, g.family, g.kind,
            )  # fmt: skip
            records[split].append(rec)
            progress("generate", 1)
    real_counts: Counter = Counter()
    if cfg.real_spans:
        from data_export.clauses.real import read_strings, real_records

        held = set(read_strings(Path(cfg.exclude))) if cfg.exclude else set()
        extra, real_counts = real_records([Path(p) for p in cfg.real_spans], held, cfg.layout)
        records[TRAIN] += extra
    train_spans = {r["span"] for r in records[TRAIN]}
    before = len(records[EVAL])
    records[EVAL] = [r for r in records[EVAL] if r["span"] not in train_spans]
    everything = records[TRAIN] + records[EVAL]
    kinds = {s: dict(sorted(Counter(r["kind"] for r in records[s]).items())) for s in records}
    roots = Counter(
        (json.loads(r["target"])["prerequisite"] or {"kind": "none"})["kind"] for r in everything
    )
    styles = Counter(s.split(":")[0] for r in everything for s in r["style"])
    schema = json.dumps(decoding_schema(cfg.layout, []), sort_keys=True)
    manifest: dict[str, Any] = {
        "kind": "clause_to_ast",
        "exporter_version": EXPORTER_VERSION,
        "layout": cfg.layout,
        "generator": {
            "seed": cfg.seed,
            "n": cfg.n,
            "eval_n": cfg.eval_n,
            "leaf_share": cfg.leaf_share,
            "train_families": list(TRAIN_FAMILIES),
            "held_out_families": list(HELD_OUT_FAMILIES),
            "eval_families": cfg.eval_families,
        },
        "columns": list(COLUMNS),
        "system_prompt_sha256": hashlib.sha256(system_prompt(cfg.layout).encode()).hexdigest(),
        "decoding_schema_sha256": hashlib.sha256(schema.encode()).hexdigest(),
        "corpus_sha256": hashlib.sha256(
            "".join(r["span"] + "\0" + r["target"] + "\n" for r in everything).encode()
        ).hexdigest(),
        "counts": {
            "records": len(everything),
            "asts": len({r["base_task_id"] for r in everything}),
            "kind": kinds,
            "root_kind": dict(sorted(roots.items())),
            "style": dict(sorted(styles.items())),
            "span_violations": 0,  # build_record refuses any violating record
        },
        "split": {
            "method": "train: generator families "
            f"{TRAIN_FAMILIES[0]}-{TRAIN_FAMILIES[-1]}; eval: {eval_from}",
            "sizes": {s: len(v) for s, v in records.items()},
            "eval_dropped_as_in_train": before - len(records[EVAL]),
        },
        "warnings": [],
        "real_spans": {
            "files": [str(p) for p in cfg.real_spans or []],
            "excluded_file": str(cfg.exclude) if cfg.exclude else None,
            "counts": dict(sorted(real_counts.items())),
        },
    }

    def rows(split: str):
        for r in records[split]:
            progress("write", 1)
            yield {k: r[k] for k in COLUMNS}

    with atomic_dir(out, cfg.overwrite, "--force") as tmp:
        scratch = out.parent / f".{out.name}.scratch-{tmp.name.rsplit('-', 1)[-1]}"
        save_splits({s: (lambda s=s: rows(s)) for s in (TRAIN, EVAL)}, features(), tmp, scratch)
        manifest["seconds"] = round(time.perf_counter() - t0, 3)
        write_json(tmp / "manifest.json", manifest)
        write_json(tmp / "decoding_schema.json", json.loads(schema))
    return manifest
