"""Demo stage timings: run `pathwise demo` into a fresh folder (or read a finished run) and write
benchmarks/results/demo.json and demo.md.

    .venv/bin/python benchmarks/bench_demo.py                 # fresh run of the smollm2-cpu recipe
    .venv/bin/python benchmarks/bench_demo.py --run runs/demo # timings of a finished run
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--run", type=Path, help="a finished demo folder (holds report.json)")
    ap.add_argument("--recipe", default="smollm2-cpu")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--note", default="", help="a line on how the run was made (e.g. resumed)")
    args = ap.parse_args()
    run = args.run
    if run is None:
        run = Path(tempfile.mkdtemp(prefix="pathwise-demo-"))
        cmd = [
            sys.executable,
            "-m",
            "pathwise.cli",
            "demo",
            "--recipe",
            args.recipe,
            "--out",
            str(run),
        ]
        subprocess.run(cmd, check=True)
    report = json.loads((run / "report.json").read_text())
    doc = {
        "benchmark": "demo_stage_timings",
        "recipe": report["recipe"],
        "machine": f"{platform.system()} {platform.machine()} Python {platform.python_version()}",
        "stage_seconds": report["stage_seconds"],
        "total_seconds": report["total_seconds"],
        "headline": report.get("headline", {}),
        "note": args.note,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "demo.json").write_text(json.dumps(doc, indent=2) + "\n")
    lines = [
        f"# Demo stage timings ({doc['recipe']})",
        "",
        f"Machine: {doc['machine']}, 2 cores. Total {doc['total_seconds']:.0f} s.",
        *([args.note] if args.note else []),
        "",
        "| stage | seconds |",
        "| --- | ---: |",
        *[f"| {k} | {v} |" for k, v in doc["stage_seconds"].items()],
        "",
        "Headline metrics of the same run:",
        "",
        "| metric | value |",
        "| --- | ---: |",
        *[
            f"| {k} | {v:.4g} |" if isinstance(v, float) else f"| {k} | {v} |"
            for k, v in doc["headline"].items()
        ],
        "",
    ]
    (args.out / "demo.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
