"""Export throughput: WebRider Appendix E corpus size (34,297 step rows) through `export sft`.

Builds a synthetic trace of N step rows (default 30,000; the paper's exclusion mix: about 10.6%
low confidence, 0.7% no action, 6.5% terminal action, 2.7% terminal subgoal) and times the whole
export (read, filter, render, split, save_to_disk, manifest). The text path excludes images; the
image path attaches small PNG screenshots. Writes benchmarks/results/export.{json,md}.

    .venv/bin/python benchmarks/bench_export.py [--rows 30000] [--no-images-run]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from contracts.guard_labels import RejectReason
from data_export.middle.export import SFTExportConfig, export_sft
from tests.helpers.synthetic_traces import png_bytes, step_row

PAPER_ROWS = 34_297
PERSONAS = [
    "explicit_control",
    "trust_first_verifier",
    "spec_exact_researcher",
    "quality_first_explorer",
]


def write_synthetic(root: Path, n: int, seed: int = 0, shards: int = 8, n_shots: int = 64) -> None:
    rng = random.Random(seed)
    (root / "shots").mkdir(parents=True)
    for i in range(n_shots):
        (root / "shots" / f"{i}.png").write_bytes(png_bytes((320, 240), (i * 3 % 256, 90, 200)))
    (root / "traces").mkdir()
    files = [open(root / "traces" / f"shard-{s}.jsonl", "w") for s in range(shards)]  # noqa: SIM115
    try:
        for i in range(n):
            base, persona = f"task-{i // 12 % 2500}", PERSONAS[i // 3 % len(PERSONAS)]
            u = rng.random()
            kw: dict = {"action": rng.choice(["click", "type"])}
            if u < 0.106:
                kw["confidence"] = rng.uniform(0.0, 0.49)
            elif u < 0.113:
                kw["action"] = None
            elif u < 0.178:
                kw["guard_rejection"] = RejectReason.TERMINAL_LABEL
            elif u < 0.205:
                kw["decision"] = rng.choice(["answer", "stop", "ask"])
            row = step_row(
                base,
                persona,
                rollout=f"{base}/{persona}/{i // 3}",
                step=i % 12,
                screenshot=f"shots/{i % n_shots}.png",
                n_labels=rng.randint(8, 40),
                **kw,
            )
            files[i % shards].write(row.model_dump_json() + "\n")
    finally:
        for f in files:
            f.close()


def run(traces: Path, images: bool, repeats: int) -> dict:
    times, cpu = [], []
    for _ in range(repeats):  # shared machines are noisy: report the median and the best
        out = traces.parent / f"out-{int(images)}"
        t0, c0 = time.perf_counter(), time.process_time()
        m = export_sft(SFTExportConfig(traces=traces, out=out, images=images))
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        shutil.rmtree(out)
    dt = statistics.median(times)
    rows = m["counts"]["step_rows"]
    return {
        "images": images,
        "step_rows": rows,
        "kept": m["counts"]["kept"],
        "filtered": m["counts"]["filtered"],
        "split": m["split"]["sizes"],
        "seconds": round(dt, 2),
        "seconds_all": [round(t, 2) for t in times],
        "rows_per_s": round(rows / dt, 1),
        "rows_per_s_best": round(rows / min(times), 1),
        "rows_per_cpu_s": round(rows / statistics.median(cpu), 1),
        "paper_corpus_seconds": round(PAPER_ROWS / (rows / dt), 1),
        "dataset_mb": round(size / 2**20, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=30_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-images-run", action="store_true", help="skip the run with screenshots")
    ap.add_argument("--results", type=Path, default=Path(__file__).parent / "results")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        traces = Path(tmp) / "traces-dir"
        t0 = time.perf_counter()
        write_synthetic(traces, args.rows)
        gen_s = time.perf_counter() - t0
        import datasets  # noqa: F401 - warm the import so it is not timed

        runs = [run(traces, images=False, repeats=args.repeats)]
        if not args.no_images_run:
            runs.append(run(traces, images=True, repeats=args.repeats))
    result = {
        "benchmark": "export sft throughput",
        "rows": args.rows,
        "synthetic_trace_seconds": round(gen_s, 1),
        "machine": f"{platform.machine()} {platform.python_version()} ({platform.node()})",
        "target": f"paper corpus ({PAPER_ROWS} rows) in under 60 s, images excluded",
        "runs": runs,
    }
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "export.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# Export throughput (`pathwise export sft`)",
        "",
        f"Synthetic trace: {args.rows} step rows, 8 shards, 8-40 labels per row, "
        "paper exclusion mix. "
        "End-to-end time: read, filter, render, split, save_to_disk, manifest.",
        "",
        "| path | step rows | kept | train/eval | median s | rows/s (median) | rows/s (best) "
        "| rows/CPU-s | 34,297-row corpus | dataset |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in runs:
        lines.append(
            f"| {'with 320x240 PNGs' if r['images'] else 'text (no images)'} | {r['step_rows']} | "
            f"{r['kept']} | {r['split']['train']}/{r['split']['eval']} | {r['seconds']} | "
            f"{r['rows_per_s']} | {r['rows_per_s_best']} | {r['rows_per_cpu_s']} | "
            f"{r['paper_corpus_seconds']} s | "
            f"{r['dataset_mb']} MB |"
        )
    lines += [
        "",
        f"Machine: {result['machine']}, shared with other jobs (hence median of "
        f"{args.repeats}). Target: {result['target']}.",
        "",
    ]
    (args.results / "export.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
