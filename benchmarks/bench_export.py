"""Export throughput: WebRider Appendix E corpus size (34,297 step rows) through `export sft`.

Builds a synthetic trace of N step rows (default 30,000; the paper's exclusion mix: about 10.6%
low confidence, 0.7% no action, 6.5% terminal action, 2.7% terminal subgoal) and times the whole
export (read, filter, render, split, save_to_disk, manifest). The text path excludes images; the
image path attaches small PNG screenshots; the two paths run interleaved, median of --repeats.
Writes benchmarks/results/export.{json,md}.

    .venv/bin/python -m benchmarks.bench_export [--rows 30000] [--no-images-run]   # about 3 min
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.harness import parse, side_by_side, write_results
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


def export_once(traces: Path, images: bool) -> dict:
    """One timed export; the dataset is removed afterwards so every round writes afresh."""
    out = traces.parent / f"out-{int(images)}"
    c0 = time.process_time()
    m = export_sft(SFTExportConfig(traces=traces, out=out, images=images))
    cpu = time.process_time() - c0
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    shutil.rmtree(out)
    return {"manifest": m, "cpu_s": cpu, "bytes": size}


def summary(images: bool, arm: dict) -> dict:
    times, last = arm["seconds"], arm["outputs"][-1]
    m = last["manifest"]
    rows, dt = m["counts"]["step_rows"], times["median"]
    return {
        "images": images,
        "step_rows": rows,
        "kept": m["counts"]["kept"],
        "filtered": m["counts"]["filtered"],
        "split": m["split"]["sizes"],
        "seconds": round(dt, 2),
        "seconds_spread": times,
        "rows_per_s": round(rows / dt, 1),
        "rows_per_s_best": round(rows / times["min"], 1),
        "rows_per_cpu_s": round(rows / statistics.median(o["cpu_s"] for o in arm["outputs"]), 1),
        "paper_corpus_seconds": round(PAPER_ROWS / (rows / dt), 1),
        "dataset_mb": round(last["bytes"] / 2**20, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=30_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-images-run", action="store_true", help="skip the run with screenshots")
    args = parse(ap, "export")
    with tempfile.TemporaryDirectory() as tmp:
        traces = Path(tmp) / "traces-dir"
        t0 = time.perf_counter()
        write_synthetic(traces, args.rows)
        gen_s = time.perf_counter() - t0
        import datasets  # noqa: F401 - warm the import so it is not timed

        arms = {"text": lambda _r: export_once(traces, images=False)}
        if not args.no_images_run:
            arms["images"] = lambda _r: export_once(traces, images=True)
        timed = side_by_side(arms, args.repeats)
    runs = [summary(name == "images", arm) for name, arm in timed.items()]
    result = {
        "rows": args.rows,
        "repeats": args.repeats,
        "synthetic_trace_seconds": round(gen_s, 1),
        "target": f"paper corpus ({PAPER_ROWS} rows) in under 60 s, images excluded",
        "runs": runs,
    }
    lines = [
        "# Export throughput (`pathwise export sft`)",
        "",
        f"Synthetic trace: {args.rows} step rows, 8 shards, 8-40 labels per row, "
        "paper exclusion mix. "
        "End-to-end time: read, filter, render, split, save_to_disk, manifest. The text and "
        f"image paths ran interleaved, {args.repeats} times each; medians.",
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
    lines += ["", f"Target: {result['target']}."]
    write_results("export", result, "\n".join(lines), overwrite=args.overwrite,
                  results=args.results)  # fmt: skip


if __name__ == "__main__":
    main()
