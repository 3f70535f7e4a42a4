"""Planner benchmark driver: KnowPlan, "Controls" and Table 5 (ladder vs weighted sum).

Writes benchmarks/results/planner.json (summary + per-pair rows) and planner.md (table)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from planner.bench import render_markdown, run_bench

OUT = Path(__file__).parent / "results"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--courses", type=int, default=300)
    ap.add_argument("--budget", type=float, default=None, help="seconds per solve (default 60)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--rows",
        type=Path,
        default=None,
        help="JSONL checkpoint of finished pairs; rerun with the same file to resume "
        "(default: OUT/planner-rows-seedS-cC.jsonl)",
    )
    args = ap.parse_args()
    rows = args.rows or args.out / f"planner-rows-seed{args.seed}-c{args.courses}.jsonl"
    result = run_bench(
        args.pairs, args.seed, args.courses, args.budget, progress=True, rows_path=rows
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "planner.json").write_text(json.dumps(result, indent=1) + "\n")
    md = "# Planner benchmark\n\n" + render_markdown(result) + "\n"
    (args.out / "planner.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
