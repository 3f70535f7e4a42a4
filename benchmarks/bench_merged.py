"""Base + LoRA against the same adapter merged into its base (`pathwise models merge`), one run.

vLLM runs a LoRA as extra matmuls on every projection at every step. Both arms serve the same
student on one vLLM server, answer the same held-out offline-eval records (the demo's evaluate
stage: grounded schema, greedy, the same concurrency) and are timed from the first request to
the last; start-up is reported apart, and the answers are compared record by record. Writes
benchmarks/results/merged.{json,md}.

    .venv/bin/python benchmarks/bench_merged.py --base runs/demo/base/model \
        --adapter runs/demo/train_adapter/out --dataset runs/demo/export/dataset \
        [--requests 32 --concurrency 4]
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


def serve_config(args: argparse.Namespace, merged: Path | None):
    from serving.vllm_args import Adapter, ServeConfig

    common = {"max_model_len": args.max_model_len, "max_num_seqs": 8}
    if merged is not None:
        return ServeConfig(base=str(merged), served_model_name="student", **common)
    return ServeConfig(
        base=str(args.base),
        adapters=[Adapter(name="student", path=args.adapter)],
        served_model_name="student-base",
        **common,
    )


def run_arm(args: argparse.Namespace, name: str, slug: str, merged: Path | None) -> dict:
    from evals.offline.run import OfflineConfig, run_offline
    from serving.launch import VLLMServer

    out = args.work / slug
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    cfg = serve_config(args, merged)
    with VLLMServer(cfg, log_path=out / "vllm.log", startup_timeout=600) as server:
        startup = time.perf_counter() - t0
        t1 = time.perf_counter()
        res = run_offline(
            OfflineConfig(
                dataset=args.dataset,
                out=out / "offline",
                endpoint=server.base_url,
                model="student",
                concurrency=args.concurrency,
                limit=args.requests,
                grounded_schema=True,
            )
        )
        wall = time.perf_counter() - t1
    done = res["examples"] - res["request_errors"]
    preds = [
        json.loads(line)["prediction"]
        for line in (out / "offline" / "predictions.jsonl").read_text().splitlines()
    ]
    return {
        "arm": name,
        "startup_s": round(startup, 1),
        "requests": res["examples"],
        "request_errors": res["request_errors"],
        "wall_s": round(wall, 1),
        "requests_per_min": round(60 * done / wall, 2),
        "action_match": res["metrics"].get("action_match"),
        "target_match": res["metrics"].get("target_match"),
        "_predictions": preds,
    }


def write(rows: list[dict], args: argparse.Namespace, merge_s: float) -> None:
    a, b = (r.pop("_predictions") for r in rows)
    same = sum(x == y for x, y in zip(a, b, strict=True))
    meta = {
        "machine": platform.processor() or platform.machine(),
        "cores": len(os.sched_getaffinity(0)),
        "base": str(args.base),
        "adapter": str(args.adapter),
        "dataset": str(args.dataset),
        "concurrency": args.concurrency,
        "merge_s": round(merge_s, 1),
        "identical_answers": same,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "merged.json").write_text(json.dumps({"meta": meta, "arms": rows}, indent=2))
    one = rows[0]["requests_per_min"]
    lines = [
        "# Base + LoRA vs the adapter merged into its base (benchmarks/bench_merged.py)",
        "",
        f"{meta['cores']} cores, one vLLM server per arm; base `{meta['base']}`, adapter "
        f"`{meta['adapter']}`; {rows[0]['requests']} held-out offline-eval records of "
        f"`{meta['dataset']}`, grounded schema, greedy, {args.concurrency} requests in flight. "
        f"The merge (`pathwise models merge`) took {meta['merge_s']} s.",
        "",
        "| served as | start-up s | eval wall s | requests / min | speed-up | action match "
        "| target match | errors |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['arm']} | {r['startup_s']} | {r['wall_s']} | {r['requests_per_min']} "
            f"| {r['requests_per_min'] / one:.2f}x | {r['action_match']:.3f} "
            f"| {r['target_match']:.3f} | {r['request_errors']} |"
        )
    lines += [
        "",
        f"Identical answers, record by record: {same} of {len(a)} (the merged weights are the "
        "float32 sum base + scale * B @ A; a different summation order can flip a near-tied "
        "greedy token).",
    ]
    (RESULTS / "merged.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--adapter", type=Path, required=True)
    ap.add_argument("--dataset", type=Path, required=True)
    ap.add_argument("--requests", type=int, default=32)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--max-model-len", type=int, default=2048)
    ap.add_argument("--work", type=Path, default=Path("runs/bench-merged"))
    args = ap.parse_args()
    from training.models.merge import merge_adapter

    merged = args.work / "merged"
    t0 = time.perf_counter()
    merge_adapter(args.base, args.adapter, merged)
    merge_s = time.perf_counter() - t0
    rows = [
        run_arm(args, "base + LoRA", "lora", None),
        run_arm(args, "merged", "merged-arm", merged),
    ]
    write(rows, args, merge_s)


if __name__ == "__main__":
    main()
