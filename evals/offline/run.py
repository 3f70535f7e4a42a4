"""Offline post-guard prediction eval: WebRider Appendix E, Tables 35-36 (held-out split).

Each held-out record's prompt (assistant turn dropped) goes to the model with the Action AST
JSON Schema as structured output; the reply is scored against the record's post-guard target
with the Appendix E metrics. Results land in a fresh --out folder, never an existing one.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agent_runtime.middle.format import (
    MiddleFormat,
    decoding_schema,
    format_from_manifest,
    strip_rationale,
)
from agent_runtime.middle.grounded_schema import grounded_schema_from_text
from agent_runtime.runner.config import MiddleSpec
from base_models.model_info import is_vision_model
from common.outputs import atomic_dir, refuse_existing, write_json
from evals.offline import data, metrics
from evals.offline.report import write_report
from evals.tokens import sum_usage
from serving.batch import chat_many


@dataclass
class OfflineConfig:
    dataset: Path
    out: Path
    split: str = "eval"
    # The served student (endpoint, key, vision, schema); its endpoint is None with `local`.
    middle: MiddleSpec = field(default_factory=MiddleSpec)
    local: Path | None = None
    adapter: Path | None = None
    concurrency: int = 8
    limit: int | None = None
    max_tokens: int = 256
    temperature: float = 0.0

    def model_label(self) -> str:
        if self.local is not None:
            return f"local:{self.local}" + (f"+{self.adapter}" if self.adapter else "")
        ep = self.middle.endpoint
        return f"{ep.model}@{ep.url}" if ep else "?"

    def as_dict(self) -> dict[str, Any]:
        plain = {k: v for k, v in asdict(self).items() if k != "middle"}
        return {
            **{k: (str(v) if isinstance(v, Path) else v) for k, v in plain.items()},
            "middle": self.middle.model_dump(mode="json"),
        }


def send_images(cfg: OfflineConfig, manifest: dict[str, Any] | None) -> bool:
    """Screenshots go to the model when the user says so, else when the model's config takes
    images (the local checkpoint's, or the served model's root on /v1/models), else when the
    dataset was exported with them."""
    if cfg.middle.vision is not None:
        return cfg.middle.vision
    if cfg.local is not None:
        return is_vision_model(cfg.local)
    served = cfg.middle.endpoint.served_vision() if cfg.middle.endpoint else None
    return served if served is not None else bool((manifest or {}).get("images"))


def dataset_format(cfg: OfflineConfig, manifest: dict[str, Any] | None) -> MiddleFormat:
    """The dataset's own interface format; --middle-format may only name the same one."""
    fmt = format_from_manifest(manifest)
    asked = cfg.middle.middle_format
    if asked is not None and asked != fmt.name:
        raise ValueError(
            f"--middle-format {asked}: {cfg.dataset} was exported in the {fmt.name} format "
            "(its prompts and targets are in that format)"
        )
    return fmt


def _backend(cfg: OfflineConfig, vision: bool) -> Any:
    from evals.offline import backends

    if cfg.local is not None:
        return backends.local_backend(cfg.local, cfg.adapter)
    if cfg.middle.endpoint is None:
        raise ValueError("give --endpoint URL and --model NAME, or --local MODEL_DIR")
    return cfg.middle.endpoint.client(timeout=120.0, vision=vision)


def _schemas(requests: list[list[dict[str, Any]]], fmt: MiddleFormat) -> list[dict[str, Any]]:
    return [grounded_schema_from_text(data.user_text(msgs), fmt) for msgs in requests]


def as_action_ast(text: str, fmt: MiddleFormat) -> str:
    """An output in the dataset's format as the paper's Action AST (the echo dropped, as the
    guards drop it), so the Appendix E metrics score exactly what would execute."""
    if not fmt.echo_label:
        return text
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return text
    return json.dumps(strip_rationale(obj), ensure_ascii=False) if isinstance(obj, dict) else text


def run_offline(
    cfg: OfflineConfig, *, backend: Any = None, progress: bool = True
) -> dict[str, Any]:
    """Run the eval and write OUT/{results.json, predictions.jsonl, report.md, confusion.png}."""
    refuse_existing(cfg.out)  # before any request
    ds = data.load_split(cfg.dataset, cfg.split)
    if cfg.limit is not None:
        ds = ds.select(range(min(cfg.limit, len(ds))))
    records = list(ds)
    manifest = data.load_manifest(cfg.dataset)
    fmt = dataset_format(cfg, manifest)
    targets = [as_action_ast(data.target_text(r), fmt) for r in records]
    for t in targets:
        metrics.parse_target(t)  # a malformed target is a dataset bug: fail before any request
    if backend is None and cfg.middle.endpoint is not None:
        cfg.middle.endpoint.check()  # reachable, the key accepted, the model served
    vision = send_images(cfg, manifest)
    requests, missing_images = [], 0
    for r in records:
        msgs, missing = data.request_messages(r, vision)
        requests.append(msgs)
        missing_images += missing

    own_backend = backend is None
    backend = backend if backend is not None else _backend(cfg, vision)
    # The embedded backend runs in this process: one call at a time.
    concurrency = 1 if cfg.local is not None else cfg.concurrency
    t0 = time.perf_counter()
    try:
        items = chat_many(
            backend,
            requests,
            json_schema=(
                _schemas(requests, fmt) if cfg.middle.grounded_schema else decoding_schema(fmt)
            ),
            concurrency=concurrency,
            temperature=cfg.temperature,
            max_tokens=cfg.max_tokens,
            progress=progress,
            desc="offline eval",
        )
    finally:
        if own_backend:
            from evals.offline.backends import close

            close(backend)
    wall = time.perf_counter() - t0

    seen = data.train_prompts(cfg.dataset, cfg.split)
    new_prompt_scores: list[metrics.ExampleScore] = []
    scores: list[metrics.ExampleScore] = []
    predictions: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    usages: list[dict[str, int] | None] = []
    for rec, target, item in zip(records, targets, items, strict=True):
        row: dict[str, Any] = {"index": item.index, **data.record_meta(rec), "target": target}
        if item.result is None:
            row["error"] = item.error
            errors.append({"index": item.index, "error": item.error})
            predictions.append(row)
            continue
        s = metrics.score_example(as_action_ast(item.result.text, fmt), target)
        scores.append(s)
        if seen is not None and data.prompt_text(rec) not in seen:
            new_prompt_scores.append(s)
        usages.append(item.result.usage.model_dump())
        row.update(
            prediction=item.result.text,
            finish_reason=item.result.finish_reason,
            latency_s=round(item.result.latency_s, 4),
            usage=item.result.usage.model_dump(),
            **s.as_dict(),
        )
        predictions.append(row)

    results: dict[str, Any] = {
        "kind": "offline_eval",
        "definitions": "WebRider Appendix E: AST validity = parseable JSON object with a "
        "normalized action type and a fallback object; action match = exact equality of the "
        "normalized predicted and guarded-target action types; target match = exact equality "
        "of their visible UI labels (empty for actions without a UI target).",
        "config": {
            **cfg.as_dict(),
            "model_label": cfg.model_label(),
            "vision": vision,
            "grounded_schema": cfg.middle.grounded_schema,
            "effective_concurrency": concurrency,
            "middle_format": fmt.model_dump(),
        },
        "metrics": metrics.aggregate(scores),
        # The same metrics on the held-out steps whose prompt never occurs in training: what
        # the student generalises, not what it recalls (None: no training split to compare).
        "metrics_new_prompts": metrics.aggregate(new_prompt_scores) if seen is not None else None,
        "per_type": metrics.per_type(scores),
        "confusion_matrix": metrics.confusion_matrix(scores),
        "examples": len(records),
        "scored": len(scores),
        "request_errors": len(errors),
        "errors": errors[:20],
        "missing_images": missing_images,
        "tokens": sum_usage(usages),
        "timing": {
            "wall_s": round(wall, 3),
            "examples_per_s": round(len(records) / wall, 3) if wall > 0 else None,
        },
        "prompt_overlap": (manifest or {}).get("prompt_overlap"),
        "dataset_manifest": {
            k: (manifest or {}).get(k)
            for k in ("corpus_sha256", "exporter_version", "split")
            if manifest and k in manifest
        }
        or None,
    }
    with atomic_dir(cfg.out) as tmp:
        write_json(tmp / "results.json", results)
        with (tmp / "predictions.jsonl").open("w", encoding="utf-8") as fh:
            for row in predictions:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        write_report(tmp, results)
    return results
