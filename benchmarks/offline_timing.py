"""One timed offline-eval pass against an endpoint: what bench_replicas and bench_merged compare.

The demo's evaluate stage in miniature: held-out offline-eval records, grounded schema,
greedy, `concurrency` requests in flight, timed from the first request to the last.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any


def timed_offline(
    dataset: Path,
    endpoint: str,
    out: Path,
    *,
    requests: int,
    concurrency: int,
    backend: Any = None,
) -> dict[str, Any]:
    """One offline pass; `backend` (a client) instead of opening one on `endpoint`."""
    from agent_runtime.runner.config import MiddleSpec
    from evals.offline.run import OfflineConfig, run_offline
    from serving.endpoint import EndpointSpec

    middle = MiddleSpec(
        kind="endpoint",
        endpoint=EndpointSpec(url=endpoint, model="student"),
        grounded_schema=True,
    )
    cfg = OfflineConfig(
        dataset=dataset, out=out, middle=middle, concurrency=concurrency, limit=requests
    )
    t0 = time.perf_counter()
    res = run_offline(cfg, backend=backend)
    wall = time.perf_counter() - t0
    done = res["examples"] - res["request_errors"]
    return {
        "requests": res["examples"],
        "request_errors": res["request_errors"],
        "wall_s": round(wall, 1),
        "requests_per_min": round(60 * done / wall, 2),
        "action_match": res["metrics"].get("action_match"),
        "target_match": res["metrics"].get("target_match"),
    }


def timed_arm(server: Any, args: argparse.Namespace, out: Path) -> dict[str, Any]:
    """Start `server` (a VLLMServer), time its start-up, then one offline pass."""
    t0 = time.perf_counter()
    with server as running:
        startup = time.perf_counter() - t0
        timed = timed_offline(
            args.dataset,
            running.base_url,
            out / "offline",
            requests=args.requests,
            concurrency=args.concurrency,
        )
    return {"startup_s": round(startup, 1), **timed}


def add_common_args(ap: argparse.ArgumentParser, work: str) -> None:
    """The student, the records and the load both serving benchmarks take."""
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--adapter", type=Path, required=True)
    ap.add_argument("--dataset", type=Path, required=True)
    ap.add_argument("--requests", type=int, default=32)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--max-model-len", type=int, default=2048)
    ap.add_argument("--rounds", type=int, default=1, help="runs per arm, interleaved")
    ap.add_argument("--work", type=Path, default=Path(work))


def run_meta(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "base": str(args.base),
        "adapter": str(args.adapter),
        "dataset": str(args.dataset),
        "concurrency": args.concurrency,
        "requests": args.requests,
        "rounds": args.rounds,
    }
