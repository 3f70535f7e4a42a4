"""Base + LoRA against the same adapter merged into its base (`pathwise models merge`), one run.

vLLM runs a LoRA as extra matmuls on every projection at every step. Both arms serve the same
student on one vLLM server, answer the same held-out offline-eval records (the demo's evaluate
stage: grounded schema, greedy, the same concurrency) and are timed from the first request to
the last; start-up is reported apart, and the answers are compared record by record. Writes
benchmarks/results/merged.{json,md}.

    .venv/bin/python -m benchmarks.bench_merged --base runs/demo/base/model \
        --adapter runs/demo/train_adapter/out --dataset runs/demo/export/dataset \
        [--requests 32 --concurrency 4]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import time
from pathlib import Path

from benchmarks.harness import parse, side_by_side, write_results
from benchmarks.offline_timing import add_common_args, run_meta, timed_arm


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


def markdown(rows: list[dict], meta: dict, same: int, total: int) -> str:
    one = statistics.median(r["requests_per_min"] for r in rows if r["arm"] == "base + LoRA")
    lines = [
        "# Base + LoRA vs the adapter merged into its base",
        "",
        f"`python -m benchmarks.bench_merged`; one vLLM server per arm; base `{meta['base']}`, "
        f"adapter `{meta['adapter']}`; {rows[0]['requests']} held-out offline-eval records of "
        f"`{meta['dataset']}`, grounded schema, greedy, {meta['concurrency']} requests in flight; "
        f"{meta['rounds']} run(s) per arm, interleaved. The merge (`pathwise models merge`) took "
        f"{meta['merge_s']} s.",
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
        f"Identical answers, record by record (first run of each arm): {same} of {total} (the "
        "merged weights are the float32 sum base + scale * B @ A; a different summation order "
        "can flip a near-tied greedy token).",
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_args(ap, "runs/bench-merged")
    args = parse(ap, "merged")
    from base_models.merge import merge_adapter

    merged = args.work / "merged"
    t0 = time.perf_counter()
    merge_adapter(args.base, args.adapter, merged)
    merge_s = time.perf_counter() - t0
    timed = side_by_side(
        {
            "base + LoRA": lambda _r: run_arm(args, "base + LoRA", "lora", None),
            "merged": lambda _r: run_arm(args, "merged", "merged-arm", merged),
        },
        args.rounds,
    )
    a, b = (arm["outputs"][0]["_predictions"] for arm in timed.values())
    same = sum(x == y for x, y in zip(a, b, strict=True))
    rows = [
        {k: v for k, v in run.items() if k != "_predictions"}
        for arm in timed.values()
        for run in arm["outputs"]
    ]
    meta = run_meta(args) | {"merge_s": round(merge_s, 1), "identical_answers": same}
    write_results("merged", {"meta": meta, "arms": rows}, markdown(rows, meta, same, len(a)),
                  overwrite=args.overwrite, results=args.results)  # fmt: skip


if __name__ == "__main__":
    main()
