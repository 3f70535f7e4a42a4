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
    from benchmarks.offline_timing import timed_arm
    from serving.launch import VLLMServer

    out = args.work / slug
    shutil.rmtree(out, ignore_errors=True)
    cfg = serve_config(args, merged)
    timed = timed_arm(VLLMServer(cfg, log_path=out / "vllm.log", startup_timeout=600), args, out)
    preds = [
        json.loads(line)["prediction"]
        for line in (out / "offline" / "predictions.jsonl").read_text().splitlines()
    ]
    return {"arm": name, **timed, "_predictions": preds}


def write(rows: list[dict], args: argparse.Namespace, merge_s: float) -> None:
    a, b = (r.pop("_predictions") for r in rows)
    same = sum(x == y for x, y in zip(a, b, strict=True))
    from benchmarks.offline_timing import run_meta

    meta = run_meta(args) | {"merge_s": round(merge_s, 1), "identical_answers": same}
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
    from benchmarks.offline_timing import add_common_args

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_args(ap, "runs/bench-merged")
    args = ap.parse_args()
    from base_models.merge import merge_adapter

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
