"""The two trained students behind vLLM on 127.0.0.1, one server each, as the study's endpoints.

Each merged student (OUT/students/<agent>/merged, from `pathwise odobot train`) is served as
one plain checkpoint (no LoRA path: benchmarks/results/merged.md), with structured outputs by
the guidance backend; both start together and stop when the study is done.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from evals.odobot.study import AGENTS, Endpoint, Students
from odobot.pipeline import student_model
from serving.launch import VLLMServer
from serving.vllm_args import ServeConfig

# The longest prompt either student gets (a full-observation step) is about 600 tokens.
MAX_MODEL_LEN = 2048


def served_name(agent: str) -> str:
    return f"{agent}-student"


@contextmanager
def served_students(
    out: Path, logs: Path, *, dtype: str = "auto", startup_timeout_s: float = 600.0
) -> Iterator[Students]:
    """Both students served until the block ends; `dtype` auto is bfloat16 only where the CPU
    runs it natively (serving.vllm_args.resolve_dtype)."""
    missing = [str(student_model(out, a)) for a in AGENTS if not student_model(out, a).is_dir()]
    if missing:
        raise FileNotFoundError(
            f"no trained student at {', '.join(missing)}; run `pathwise odobot train --out {out}` "
            "first, or give --endpoint"
        )
    servers = {
        agent: VLLMServer(
            ServeConfig(
                base=str(student_model(out, agent)),
                served_model_name=served_name(agent),
                allow_runtime_lora=False,
                max_model_len=MAX_MODEL_LEN,
                max_num_seqs=4,
                dtype=dtype,
            ),
            log_path=logs / f"vllm-{agent}.log",
            startup_timeout=startup_timeout_s,
        )
        for agent in AGENTS
    }
    logs.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        for server in servers.values():
            stack.callback(server.stop)
            server.start()
        for server in servers.values():
            server.wait_ready()
        yield Students(
            **{a: Endpoint(url=s.base_url, model=served_name(a)) for a, s in servers.items()}
        )
