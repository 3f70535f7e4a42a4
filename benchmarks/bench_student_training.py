"""Training throughput of the pretrained demo student, fp32 against bf16, in one run.

LoRA (training/recipes/demo-student-smollm2.yaml: r16 on every linear layer, micro batch 4) over
SmolLM2-135M-Instruct on the demo's real post-guard records, through training/sft.py exactly as
`pathwise demo` runs it. The two precisions alternate (fp32, bf16, fp32, bf16, ...) so machine
noise falls on both; steps/s is the trainer's own loop time (no model load), tokens/s counts the
tokens the trainer saw (TRL's num_tokens). A matmul probe (torch, both dtypes) runs first: on a
CPU without AMX/AVX512-BF16, bf16 is emulated and a bf16 training step would take hours, so that
arm is reported from the probe alone unless --force-bf16.
Writes benchmarks/results/student_training.{json,md}.

    .venv/bin/python -m benchmarks.bench_student_training --model runs/demo/base/model \
        --dataset runs/demo/export/dataset [--steps 8] [--rounds 2] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from base_models.precision import bf16_support
from benchmarks.harness import parse, side_by_side, write_results

REPO = Path(__file__).resolve().parent.parent
RECIPE = REPO / "training/recipes/demo-student-smollm2.yaml"


def _one(model: Path, dataset: Path, precision: str, steps: int, threads: int, out: Path) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), TOKENIZERS_PARALLELISM="false")
    cmd = [
        sys.executable, "-m", "training.sft", "--recipe", str(RECIPE), "--model", str(model),
        "--dataset", str(dataset), "--output-dir", str(out), "--max-steps", str(steps),
        "--precision", precision, "--resume", "never",
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-4000:]}")
    summary = json.loads((out / "run_summary.json").read_text())
    state = json.loads((out / "trainer_state.json").read_text())
    tokens = max((e.get("num_tokens", 0) for e in state["log_history"]), default=0)
    runtime = summary["train_metrics"]["train_runtime"]
    return {
        "precision": summary["precision"],
        "reason": summary["precision_reason"],
        "steps": summary["global_step"],
        "train_runtime_s": round(runtime, 2),
        "steps_per_s": round(summary["global_step"] / runtime, 4),
        "tokens": int(tokens),
        "tokens_per_s": round(tokens / runtime, 1),
        "loss_last": round(summary["train_losses"][-1], 4) if summary["train_losses"] else None,
    }


def matmul_gflops(dtype_name: str, threads: int, n: int = 1024, reps: int = 3) -> float:
    import time

    import torch

    torch.set_num_threads(threads)
    dtype = getattr(torch, dtype_name)
    a, b = torch.randn(n, n, dtype=dtype), torch.randn(n, n, dtype=dtype)
    a @ b  # warm-up: kernel selection and page faults stay out of the timing
    t0 = time.perf_counter()
    for _ in range(reps):
        a @ b
    return round(2 * n**3 * reps / (time.perf_counter() - t0) / 1e9, 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", type=Path, required=True, help="imported SmolLM2 directory")
    ap.add_argument("--dataset", type=Path, required=True, help="the demo's export (DatasetDict)")
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--force-bf16", action="store_true", help="train bf16 even where emulated")
    args = parse(ap, "student_training")
    native, why = bf16_support()
    probe = {d: matmul_gflops(d, args.threads) for d in ("float32", "bfloat16")}
    print(json.dumps({"matmul_gflops": probe, "bf16_native": native}), flush=True)
    precisions = ("fp32", "bf16") if native or args.force_bf16 else ("fp32",)
    with tempfile.TemporaryDirectory(prefix="bench-student-") as tmp:
        timed = side_by_side(
            {
                p: lambda r, p=p: _one(
                    args.model, args.dataset, p, args.steps, args.threads, Path(tmp) / f"{p}-{r}"
                )
                for p in precisions
            },
            args.rounds,
        )
    runs = [run for arm in timed.values() for run in arm["outputs"]]
    arms = {}
    for precision in precisions:
        mine = [x for x in runs if x["precision"] == precision]
        arms[precision] = {
            "runs": len(mine),
            "steps_per_s": round(statistics.median(x["steps_per_s"] for x in mine), 4),
            "tokens_per_s": round(statistics.median(x["tokens_per_s"] for x in mine), 1),
            "s_per_step": round(1 / statistics.median(x["steps_per_s"] for x in mine), 2),
        }
    speedup = (
        arms["bf16"]["tokens_per_s"] / arms["fp32"]["tokens_per_s"] if "bf16" in arms else None
    )
    doc = {
        "recipe": str(RECIPE.relative_to(REPO)),
        "bf16_reason": why,
        "bf16_native": native,
        "matmul_gflops_1024": probe,
        "steps_per_run": args.steps,
        "threads": args.threads,
        "arms": arms,
        "bf16_speedup": round(speedup, 2) if speedup else None,
        "runs": runs,
    }
    md = [
        "# Training throughput of the pretrained student: fp32 vs bf16",
        "",
        f"LoRA r16 on every linear layer of SmolLM2-135M-Instruct, micro batch 4, the demo's "
        f"real records, `{doc['recipe']}` through training/sft.py; {args.rounds} alternating "
        f"runs of {args.steps} steps per precision, {args.threads} threads; medians.",
        "",
        "| precision | steps/s | s/step | tokens/s |",
        "| --- | ---: | ---: | ---: |",
        *[
            f"| {p} | {a['steps_per_s']} | {a['s_per_step']} | {a['tokens_per_s']} |"
            for p, a in arms.items()
        ],
        "",
        f"Matmul probe (1024 x 1024, {args.threads} threads): fp32 {probe['float32']} GFLOP/s, "
        f"bf16 {probe['bfloat16']} GFLOP/s.",
        "",
        (
            f"bf16 is {speedup:.2f}x fp32 in tokens/s here ({why}); `precision: auto` picks bf16 "
            "on such a CPU and fp32 on one without native bf16."
            if speedup
            else f"bf16 not trained here: {why}; at the probe's rate one bf16 step would take "
            f"about {probe['float32'] / max(probe['bfloat16'], 1e-9):.0f}x an fp32 step, so "
            "`precision: auto` picks fp32 (on a CPU with AMX-BF16, bf16 was about 2x fp32)."
        ),
        "",
    ]
    write_results("student_training", doc, "\n".join(md), overwrite=args.overwrite,
                  results=args.results)  # fmt: skip


if __name__ == "__main__":
    main()
