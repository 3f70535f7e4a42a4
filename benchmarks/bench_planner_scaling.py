"""How the planner's cost grows with catalog size: KnowPlan, DegreeMap "Exact planning" (the
60 s budget) on synthetic catalogs of 300, 1,000 and 3,000 courses, the ladder alone, in one run.

    .venv/bin/python -m benchmarks.bench_planner_scaling [--sizes 300 1000 3000] [--pairs 20]

Writes benchmarks/results/planner_scaling.{json,md} (every pair's row included). Resumable:
each size checkpoints its finished pairs in WORK/rows-cN.jsonl; rerunning skips them. The
default 60 pairs take about an hour (most of it pairs that run out of the budget).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.harness import parse, write_results
from planner.bench import run_bench


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[300, 1000, 3000])
    ap.add_argument("--pairs", type=int, default=20, help="(program, profile) pairs per size")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=None, help="seconds per solve (default 60)")
    ap.add_argument("--work", type=Path, default=Path("runs/bench-planner-scaling"))
    args = parse(ap, "planner_scaling")
    args.work.mkdir(parents=True, exist_ok=True)
    sizes = {}
    for n in args.sizes:
        r = run_bench(
            args.pairs,
            args.seed,
            n,
            args.budget,
            progress=True,
            rows_path=args.work / f"rows-c{n}.jsonl",
            methods=("ladder",),
        )
        sizes[n] = {"config": r["config"], "summary": r["summary"]["ladder"], "rows": r["rows"]}
    result = {"sizes": sizes}
    write_results("planner_scaling", result, render(result), overwrite=args.overwrite,
                  results=args.results)  # fmt: skip


def render(result: dict) -> str:
    c = next(iter(result["sizes"].values()))["config"]
    lines = [
        "# Planner scaling (synthetic catalogs)",
        "",
        f"The ladder alone, {c['workers']} CP-SAT worker(s), {c['budget_s']:g} s budget per "
        f"request, seed {c['seed']}. Deterministic seconds are CP-SAT's own work measure "
        "(independent of machine load; about one per wall second on an idle core).",
        "",
        "| courses | pairs | certified | median s | p95 s | median deterministic s "
        "| uncertified at stage |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for n, s in result["sizes"].items():
        x = s["summary"]
        stages = ", ".join(f"{k} {v}" for k, v in x["uncertified_stages"].items()) or "-"
        lines.append(
            f"| {n} | {x['pairs']} | {x['certified']} ({100 * x['certified'] / x['pairs']:.0f}%) "
            f"| {x['median_s']} | {x['p95_s']} | {x['median_deterministic_s']} | {stages} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
