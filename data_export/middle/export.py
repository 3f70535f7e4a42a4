"""Middle-layer SFT export pipeline: WebRider Appendix E (filters, grouped 8% split, manifest).

traces DIR -> read (bad rows counted) -> filters (counted, in order) -> screenshot check ->
record (runtime prompt + post-guard ActionAST) -> base-task hash split -> DatasetDict + manifest,
written atomically and never over an existing folder unless asked.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_runtime.middle.format import PAPER, MiddleFormat
from agent_runtime.middle.prompt import middle_system_prompt
from common.outputs import atomic_dir, refuse_existing, write_json
from contracts.step_row import StepRow
from contracts.version import SCHEMA_VERSION
from data_export import EXPORTER_VERSION
from data_export.dataset import save_splits
from data_export.middle.filters import DEFAULT_MIN_CONFIDENCE, FILTER_REASONS, exclusion_reason
from data_export.middle.reader import BadRows, SourceFile, find_trace_files, iter_step_rows
from data_export.middle.records import COLUMNS, build_record, persona_criterion
from data_export.split import (
    DEFAULT_EVAL_FRACTION,
    DEFAULT_SEED,
    EVAL,
    TRAIN,
    assign,
    split_warnings,
)

log = logging.getLogger(__name__)

Progress = Callable[[str, int], None]
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"RIFF")


@dataclass
class SFTExportConfig:
    traces: Path
    out: Path
    eval_fraction: float = DEFAULT_EVAL_FRACTION
    seed: int = DEFAULT_SEED
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    overwrite: bool = False
    images: bool = True  # False: text path only (benchmarks, inspection); not for VL training
    max_examples: int = 5
    # The middle's interface format (agent_runtime/middle/format.py), recorded in the manifest.
    middle_format: MiddleFormat = PAPER
    # Task families kept for evaluation ("miniwob/click-test"): a row of one is refused, so a
    # student judged on tasks it never saw cannot have seen them.
    heldout_families: tuple[str, ...] = ()


def task_family(base_task_id: str) -> str:
    """'miniwob/click-test/7' -> 'miniwob/click-test': the base task without its instance."""
    return base_task_id.rsplit("/", 1)[0] if "/" in base_task_id else base_task_id


class HeldOutTaskError(ValueError):
    """A trace row of a held-out task family reached the export."""


@dataclass
class _Pending:
    record: dict[str, Any]
    screenshot: Path | None
    split: str = ""


@dataclass
class _Tally:
    step_rows: int = 0
    filtered: Counter = field(default_factory=Counter)
    unknown_personas: Counter = field(default_factory=Counter)


def features(images: bool = True):
    from datasets import Features, Image, List, Value

    part = {"type": Value("string"), "text": Value("string")}
    cols = {
        "messages": List({"role": Value("string"), "content": List(part)}),
        "images": List(Image()),
        "base_task_id": Value("string"),
        "rollout_id": Value("string"),
        "step_index": Value("int32"),
        "source_sha256": Value("string"),
        "contract_id": Value("string"),
        "command_verb": Value("string"),
    }
    assert tuple(cols) == COLUMNS
    return Features(cols)


def _screenshot(row: StepRow, root: Path, where: str, bad: BadRows) -> Path | None:
    """The screenshot's path if it is a readable image inside the trace dir; else count and None."""
    rel = row.observation.screenshot
    if not rel:
        bad.add("missing_screenshot", where, "observation.screenshot is empty")
        return None
    path = (root / rel).resolve()
    if not path.is_relative_to(root):
        bad.add("bad_screenshot_path", where, f"{rel!r} points outside the trace directory")
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        bad.add("missing_screenshot", where, f"{rel} not found")
        return None
    if not head.startswith(_IMAGE_MAGIC):
        bad.add("bad_screenshot", where, f"{rel} is not a PNG/JPEG/WebP file")
        return None
    return path


def _read(
    cfg: SFTExportConfig,
    root: Path,
    files: list[Path],
    bad: BadRows,
    tally: _Tally,
    progress: Progress,
) -> tuple[list[_Pending], list[SourceFile]]:
    pending: list[_Pending] = []
    sources: list[SourceFile] = []
    for path in files:
        file_recs: list[_Pending] = []
        gen = iter_step_rows(path, root, bad)
        while True:
            try:
                lineno, row = next(gen)
            except StopIteration as stop:
                src: SourceFile = stop.value
                break
            tally.step_rows += 1
            progress("read", 1)
            family = task_family(row.contract.base_task_id)
            if family in cfg.heldout_families:
                raise HeldOutTaskError(
                    f"{src_rel(path, root)}:{lineno}: task {family} is held out for evaluation; "
                    "its rollouts must not become training data (nothing was written)"
                )
            reason = exclusion_reason(row, cfg.min_confidence)
            if reason is not None:
                tally.filtered[reason] += 1
                continue
            shot = None
            if cfg.images:
                shot = _screenshot(row, root, f"{src_rel(path, root)}:{lineno}", bad)
                if shot is None:
                    continue
            persona = row.contract.persona
            if persona and not persona_criterion(persona):
                tally.unknown_personas[persona] += 1
            rec = build_record(row, source_sha256="", fmt=cfg.middle_format)
            if not cfg.images:
                user = rec["messages"][1]
                user["content"] = [p for p in user["content"] if p["type"] != "image"]
            file_recs.append(_Pending(rec, shot))
        for p in file_recs:
            p.record["source_sha256"] = src.sha256
        pending.extend(file_recs)
        sources.append(src)
    return pending, sources


def src_rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _user_key(rec: dict[str, Any]) -> bytes:
    text = next(p["text"] for p in rec["messages"][1]["content"] if p["type"] == "text")
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def corpus_sha256(sources: list[SourceFile]) -> str:
    """sha256 over the sorted `relpath sha256` lines of every source trace file."""
    lines = sorted(f"{s.path} {s.sha256}\n" for s in sources)
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def _rows(
    pending: list[_Pending], split: str, images: bool, progress: Progress
) -> Iterator[dict[str, Any]]:
    for p in pending:
        if p.split != split:
            continue
        rec = p.record
        if images and p.screenshot is not None:
            rec = {**rec, "images": [{"bytes": p.screenshot.read_bytes(), "path": None}]}
        progress("write", 1)
        yield rec


def export_sft(cfg: SFTExportConfig, progress: Progress | None = None) -> dict[str, Any]:
    """Run the export; returns the manifest (also written to OUT/manifest.json).

    `progress(stage, n)` is called with stage "read" per step row and "write" per written record.
    """
    progress = progress or (lambda stage, n: None)
    t0 = time.perf_counter()
    root = Path(cfg.traces).resolve()
    out = Path(cfg.out)
    refuse_existing(out, cfg.overwrite, "--force")  # refuse before doing any work
    if not root.is_dir():
        raise FileNotFoundError(f"trace directory {cfg.traces} does not exist")
    if not 0.0 <= cfg.eval_fraction <= 1.0:
        raise ValueError(f"eval fraction must be in [0, 1], got {cfg.eval_fraction}")
    files = find_trace_files(root)
    if not files:
        raise FileNotFoundError(f"no *.jsonl trace files under {cfg.traces}")

    bad, tally = BadRows(cfg.max_examples), _Tally()
    pending, sources = _read(cfg, root, files, bad, tally, progress)

    groups: dict[str, set[str]] = {TRAIN: set(), EVAL: set()}
    for p in pending:
        base = p.record["base_task_id"]
        p.split = assign(base, cfg.eval_fraction, cfg.seed)
        groups[p.split].add(base)
    n = Counter(p.split for p in pending)
    train_prompts = {_user_key(p.record) for p in pending if p.split == TRAIN}
    eval_keys = [_user_key(p.record) for p in pending if p.split == EVAL]
    overlap = sum(k in train_prompts for k in eval_keys)
    warnings = split_warnings(
        n[TRAIN], n[EVAL], len(groups[TRAIN]) + len(groups[EVAL]), cfg.eval_fraction
    )
    if tally.unknown_personas:
        warnings.append(
            "persona(s) not in PERSONA_LIBRARY, rendered without their criterion (the runner may "
            f"have served one): {dict(tally.unknown_personas)}"
        )
    if not pending:
        warnings.append("no row survived the filters: the dataset is empty")
    for w in warnings:
        log.warning(w)

    kept = len(pending)
    manifest: dict[str, Any] = {
        "kind": "middle_sft",
        "exporter_version": EXPORTER_VERSION,
        "step_row_schema_version": SCHEMA_VERSION,
        "corpus_sha256": corpus_sha256(sources),
        "columns": list(COLUMNS),
        "images": cfg.images,
        "system_prompt_sha256": hashlib.sha256(
            middle_system_prompt(cfg.middle_format).encode()
        ).hexdigest(),
        "middle_format": cfg.middle_format.model_dump(),
        "heldout_families": sorted(cfg.heldout_families),
        "counts": {
            "step_rows": tally.step_rows,
            "outcome_rows": sum(s.outcome_rows for s in sources),
            "filtered": {r: tally.filtered[r] for r in FILTER_REASONS},
            "filtered_total": sum(tally.filtered.values()),
            "bad_after_filters": sum(
                bad.counts[r]
                for r in ("missing_screenshot", "bad_screenshot_path", "bad_screenshot")
            ),
            "kept": kept,
        },
        "min_confidence": cfg.min_confidence,
        "bad_rows": bad.as_dict(),
        "split": {
            "method": "sha256(f'{seed}\\0{base_task_id}')[:8] / 2**64 < eval_fraction -> eval",
            "seed": cfg.seed,
            "eval_fraction": cfg.eval_fraction,
            "sizes": {TRAIN: n[TRAIN], EVAL: n[EVAL]},
            "base_tasks": {TRAIN: len(groups[TRAIN]), EVAL: len(groups[EVAL])},
            "base_tasks_on_both_sides": len(groups[TRAIN] & groups[EVAL]),
        },
        "prompt_overlap": {
            "eval_prompts": len(eval_keys),
            "eval_prompts_in_train": overlap,
            "share": overlap / len(eval_keys) if eval_keys else 0.0,
        },
        "sources": [s.as_dict() for s in sources],
        "warnings": warnings,
    }
    with atomic_dir(out, cfg.overwrite, "--force") as tmp:
        scratch = out.parent / f".{out.name}.scratch-{tmp.name.rsplit('-', 1)[-1]}"
        sizes = save_splits(
            {s: (lambda s=s: _rows(pending, s, cfg.images, progress)) for s in (TRAIN, EVAL)},
            features(cfg.images),
            tmp,
            scratch,
        )
        assert sizes == {TRAIN: n[TRAIN], EVAL: n[EVAL]}, sizes
        manifest["seconds"] = round(time.perf_counter() - t0, 3)
        write_json(tmp / "manifest.json", manifest)
    return manifest
