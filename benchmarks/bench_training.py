"""CPU training throughput of the tiny recipes: WebRider Appendix E, Tables 37-39 at smoke scale.

Builds the tiny Qwen3-VL and Qwen3 models and synthetic datasets, then runs training/sft.py for N
optimizer steps (tiny-middle-vl single process, tiny-middle-vl under DeepSpeed ZeRO-2 with two CPU
processes, tiny-clause), each in a fresh subprocess with one thread per process. Steps per second
come from the trainer's own ``train_steps_per_second`` (training loop only, no model load).
Writes benchmarks/results/training.{json,md}.

    .venv/bin/python -m benchmarks.bench_training [--steps 40] [--no-zero2]   # about 5 min
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import parse, write_results

REPO = Path(__file__).resolve().parent.parent


def _env() -> dict[str, str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    env.pop("WANDB_PROJECT", None)
    return env


def _run(cmd: list[str], out: Path) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=_env(), capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-4000:]}")
    s = json.loads((out / "run_summary.json").read_text())
    m = s["train_metrics"]
    return {
        "steps": s["global_step"],
        "processes": s["num_processes"],
        "distributed": s["distributed_type"],
        "micro_batch": s["micro_batch"],
        "grad_accum": s["grad_accum"],
        "global_batch": s["global_batch"],
        "steps_per_s": round(m["train_steps_per_second"], 3),
        "samples_per_s": round(m["train_samples_per_second"], 3),
        "train_runtime_s": round(m["train_runtime"], 3),
        "wall_s_incl_startup": round(wall, 1),
        "loss_first": round(s["train_losses"][0], 4),
        "loss_last": round(s["train_losses"][-1], 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--no-zero2", action="store_true", help="skip the DeepSpeed two-process run")
    args = parse(ap, "training")

    from base_models import tiny
    from training import tiny_data

    py = sys.executable
    accelerate = str(Path(py).parent / "accelerate")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        vl, text = tiny.build("vl", t / "vl"), tiny.build("text", t / "text")
        # Enough rows that N steps stay inside one epoch at global batch 2.
        n = max(64, 2 * args.steps)
        vl_data = tiny_data.build("vl", t / "vl_data", n_train=n, n_eval=4)
        text_data = tiny_data.build("text", t / "text_data", n_train=n, n_eval=4)
        common = ["--max-steps", str(args.steps), "--resume", "never"]

        def sft(recipe: str, model: Path, data: Path, out: Path, launcher: list[str], *extra):
            cmd = [*launcher, "--recipe", f"training/recipes/{recipe}.yaml", "--model", str(model)]
            return _run(
                [*cmd, "--dataset", str(data), "--output-dir", str(out), *common, *extra], out
            )

        rows.append(
            {"run": "tiny-middle-vl, python -m training.sft"}
            | sft("tiny-middle-vl", vl, vl_data, t / "r1", [py, "-m", "training.sft"])
        )
        if not args.no_zero2:
            launcher = [accelerate, "launch", "--config_file"]
            launcher += ["training/accelerate/cpu-zero2-2proc.yaml", "training/sft.py"]
            rows.append(
                {"run": "tiny-middle-vl, DeepSpeed ZeRO-2, 2 CPU processes"}
                | sft("tiny-middle-vl", vl, vl_data, t / "r2", launcher, "--micro-batch", "1")
            )
        rows.append(
            {"run": "tiny-clause, python -m training.sft"}
            | sft("tiny-clause", text, text_data, t / "r3", [py, "-m", "training.sft"])
        )

    result = {"steps": args.steps, "threads_per_process": 1, "runs": rows}
    lines = [
        "# Training throughput (tiny recipes, CPU)",
        "",
        f"{args.steps} optimizer steps per run, global batch 2, one thread per process, fp32. "
        "steps/s is the trainer's `train_steps_per_second` (loop only); wall includes imports, "
        "model load and the overlength pass. The machine is shared with other jobs (its load "
        "is in the machine line), so treat the numbers as a floor.",
        "",
        "| run | procs | micro x accum | steps/s | samples/s | loss first -> last | wall s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['run']} | {r['processes']} | {r['micro_batch']} x {r['grad_accum']} | "
            f"{r['steps_per_s']} | {r['samples_per_s']} | {r['loss_first']} -> {r['loss_last']} | "
            f"{r['wall_s_incl_startup']} |"
        )
    write_results("training", result, "\n".join(lines), overwrite=args.overwrite,
                  results=args.results)  # fmt: skip


if __name__ == "__main__":
    main()
