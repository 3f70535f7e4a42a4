"""The demo pipeline: each stage resumable, stage timings collected for the report."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from pathwise.demo.collect import teacher_run
from pathwise.demo.config import DemoConfig
from pathwise.demo.report import write_report
from pathwise.demo.stages import run_stage


def run_pipeline(cfg: DemoConfig, out: Path, final: bool = False) -> dict[str, Any]:
    """Every stage of `cfg`; with `final`, also the test tasks (measured once, at the end)."""
    out.mkdir(parents=True, exist_ok=True)
    s: dict[str, Any] = {}
    s["collect"] = run_stage(out, "collect", lambda d: teacher_run(cfg, cfg.train_seeds, d))
    s["reference"] = run_stage(out, "reference", lambda d: teacher_run(cfg, cfg.heldout_seeds, d))
    if cfg.unseen_tasks:
        s["reference_unseen"] = run_stage(
            out,
            "reference_unseen",
            lambda d: teacher_run(cfg, cfg.unseen_seeds, d, cfg.unseen_tasks),
        )
    if final and cfg.test_tasks:
        s["reference_test"] = run_stage(
            out, "reference_test", lambda d: teacher_run(cfg, cfg.test_seeds, d, cfg.test_tasks)
        )
    if cfg.student is not None:
        _student(cfg, out, s)
    report = write_report(cfg, out, s)
    (out / "report.json").write_text(json.dumps(report, indent=2, default=str))
    return report


def _base(cfg: DemoConfig, out: Path, s: dict[str, Any], dataset: Path, traces: Path) -> Path:
    """The adapter's base: a pretrained model imported from the registry, else the adapter
    recipe's own `model.name_or_path` (a hub id on a GPU node)."""
    from pathwise.demo import student

    spec = cfg.student
    assert spec is not None
    if spec.base:
        s["base"] = run_stage(out, "base", lambda d: student.import_stage(spec.base or "", d))
        return Path(s["base"]["model"])
    return Path(student.recipe_value(spec.adapter_recipe, "model", "name_or_path"))


def _student(cfg: DemoConfig, out: Path, s: dict[str, Any]) -> None:
    from pathwise.demo import serve_eval, student

    spec = cfg.student
    assert spec is not None
    traces = Path(s["collect"]["run_dir"])
    s["export"] = run_stage(out, "export", lambda d: student.export_stage(cfg, traces, d))
    dataset = Path(s["export"]["dataset"])
    os.environ.setdefault("OMP_NUM_THREADS", str(cfg.train_threads))
    base = _base(cfg, out, s, dataset, traces)
    s["train_adapter"] = run_stage(
        out,
        "train_adapter",
        lambda d: student.sft_stage(spec.adapter_recipe, base, dataset, d, spec.max_steps_adapter),
    )
    adapter = Path(s["train_adapter"]["out"])
    merged = None
    if cfg.serve_merged:
        s["merge"] = run_stage(out, "merge", lambda d: student.merge_stage(base, adapter, d))
        merged = Path(s["merge"]["model"])

    def live(d: Path, reference: str, url: str) -> dict[str, Any]:
        return serve_eval.live_stage(
            cfg, Path(s[reference]["contracts"]), Path(s[reference]["run_dir"]), url, d
        )

    def evaluate(d: Path) -> dict[str, Any]:
        server = serve_eval.served(cfg, base, adapter, d / "vllm.log", merged)
        t0 = time.monotonic()
        with server:
            serve_s = time.monotonic() - t0
            offline = serve_eval.offline_stage(
                cfg, dataset, server.base_url, d / "offline", cfg.grounded_schema
            )
            images = {"offline": getattr(server, "images_seen", None)}
            # With grounded decoding, the global-schema numbers stay in the report beside it.
            offline_global = (
                serve_eval.offline_stage(cfg, dataset, server.base_url, d / "offline", False)
                if cfg.grounded_schema
                else None
            )
            t1 = time.monotonic()
            seen = getattr(server, "images_seen", None)
            results = {"live": live(d / "live", "reference", server.base_url)}
            if seen is not None:
                images["live"] = server.images_seen - seen
            t2 = time.monotonic()
            if "reference_unseen" in s:
                results["live_unseen"] = live(
                    d / "live-unseen", "reference_unseen", server.base_url
                )
            t3 = time.monotonic()
        return {
            "offline": offline,
            "offline_global": offline_global,
            **results,
            "vision": offline["results"]["config"]["vision"],
            # Screenshots that reached the model as pixel values (the embedded backend counts).
            "images_to_model": images if images["offline"] is not None else None,
            "timings": {
                "serve_startup_s": serve_s,
                "offline_s": t1 - t0 - serve_s,
                "live_s": t2 - t1,
                "live_unseen_s": t3 - t2,
            },
        }

    s["evaluate"] = run_stage(out, "evaluate", evaluate)
    if "reference_test" in s:
        # Its own stage and server: a finished evaluation is never rerun to add the test tasks.
        def evaluate_test(d: Path) -> dict[str, Any]:
            with serve_eval.served(cfg, base, adapter, d / "vllm.log", merged) as server:
                return {"live_test": live(d / "live-test", "reference_test", server.base_url)}

        s["evaluate_test"] = run_stage(out, "evaluate_test", evaluate_test)
