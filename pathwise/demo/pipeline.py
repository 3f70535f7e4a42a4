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


def run_pipeline(cfg: DemoConfig, out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    s: dict[str, Any] = {}
    s["collect"] = run_stage(out, "collect", lambda d: teacher_run(cfg, cfg.train_seeds, d))
    s["reference"] = run_stage(out, "reference", lambda d: teacher_run(cfg, cfg.heldout_seeds, d))
    if cfg.student is not None:
        _student(cfg, out, s)
    report = write_report(cfg, out, s)
    (out / "report.json").write_text(json.dumps(report, indent=2, default=str))
    return report


def _student(cfg: DemoConfig, out: Path, s: dict[str, Any]) -> None:
    from pathwise.demo import serve_eval, student

    spec = cfg.student
    assert spec is not None
    traces = Path(s["collect"]["run_dir"])
    s["export"] = run_stage(out, "export", lambda d: student.export_stage(cfg, traces, d))
    dataset = Path(s["export"]["dataset"])
    os.environ.setdefault("OMP_NUM_THREADS", str(cfg.train_threads))
    if spec.base_recipe:
        s["augment"] = run_stage(
            out, "augment", lambda d: student.augment_stage(cfg, traces, dataset, d)
        )
        base_data = Path(s["augment"]["dataset"])
        s["build"] = run_stage(out, "build", lambda d: student.build_stage(cfg, [base_data], d))
        s["train_base"] = run_stage(
            out,
            "train_base",
            lambda d: student.sft_stage(
                spec.base_recipe or "",
                Path(s["build"]["model"]),
                base_data,
                d,
                spec.max_steps_base,
            ),
        )
        base = Path(s["train_base"]["out"])
    else:
        base = Path(student.recipe_value(spec.adapter_recipe, "model", "name_or_path"))
    s["train_adapter"] = run_stage(
        out,
        "train_adapter",
        lambda d: student.sft_stage(spec.adapter_recipe, base, dataset, d, spec.max_steps_adapter),
    )
    adapter = Path(s["train_adapter"]["out"])

    vision = not spec.text_only

    def evaluate(d: Path) -> dict[str, Any]:
        server = serve_eval.served(cfg, base, adapter, d / "vllm.log")
        t0 = time.monotonic()
        with server:
            serve_s = time.monotonic() - t0
            offline = serve_eval.offline_stage(
                dataset, server.base_url, d / "offline", vision, cfg.grounded_schema
            )
            # With grounded decoding, the global-schema numbers stay in the report beside it.
            offline_global = (
                serve_eval.offline_stage(dataset, server.base_url, d / "offline", vision)
                if cfg.grounded_schema
                else None
            )
            t1 = time.monotonic()
            live = serve_eval.live_stage(
                Path(s["reference"]["contracts"]),
                Path(s["reference"]["run_dir"]),
                server.base_url,
                cfg.workers,
                d / "live",
                cfg.grounded_schema,
            )
            live_s = time.monotonic() - t1
        return {
            "offline": offline,
            "offline_global": offline_global,
            "live": live,
            "timings": {
                "serve_startup_s": serve_s,
                "offline_s": t1 - t0 - serve_s,
                "live_s": live_s,
            },
        }

    s["evaluate"] = run_stage(out, "evaluate", evaluate)
