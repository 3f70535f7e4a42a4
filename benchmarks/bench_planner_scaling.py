"""How the planner's cost grows with catalog size: KnowPlan, DegreeMap "Exact planning" (the
60 s budget) on synthetic catalogs of 300, 1,000 and 3,000 courses, the ladder alone, before
and after a change, side by side in one run.

    git worktree add /tmp/planner-before main
    .venv/bin/python -m benchmarks.bench_planner_scaling --before /tmp/planner-before \\
        [--sizes 300 1000 3000] [--pairs 20]
    git worktree remove /tmp/planner-before

Each arm runs benchmarks/planner_arm.py in its own process with its tree's `planner` first on
the path (the before arm: the checkout given; the after arm: this one), one size after the
other, every request verified. Writes benchmarks/results/planner_scaling.{json,md} (every
request's row included). Resumable: each arm checkpoints its rows in
WORK/{before,after}-cN.jsonl and a rerun skips them, so the sizes can be run one at a time
(each under its own exclusive lock) and the last run renders them all.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.harness import parse, spread, write_results

ROOT = Path(__file__).resolve().parent.parent
ARM = Path(__file__).resolve().parent / "planner_arm.py"


def run_arm(tree: Path, courses: int, pairs: int, seed: int, budget: float | None,
            rows: Path) -> list[dict[str, Any]]:  # fmt: skip
    cmd = [sys.executable, str(ARM), "--courses", str(courses), "--pairs", str(pairs)]
    cmd += ["--seed", str(seed), "--rows", str(rows)]
    cmd += ["--budget", str(budget)] if budget is not None else []
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    out = [json.loads(line) for line in rows.read_text().splitlines() if line]
    return sorted((r for r in out if r["pair"] < pairs), key=lambda r: r["pair"])


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts, wall and deterministic seconds over every request, and model sizes."""
    walls = [r["wall_s"] for r in rows]
    dets = [r["deterministic_s"] for r in rows if r["deterministic_s"] is not None]
    xs = [r["model"].get("x", 0) for r in rows]
    return {
        "pairs": len(rows),
        "certified": sum(r["certified"] for r in rows),
        "infeasible": sum(r["status"] == "infeasible" for r in rows),
        "uncertified": sum(r["status"] != "infeasible" and not r["certified"] for r in rows),
        "violations": sum(bool(r["violations"]) for r in rows),
        "wall_s": spread(walls),
        "deterministic_s": spread(dets) if dets else None,
        "x": spread(xs, digits=0),
        "max_build_s": max((r["model"].get("build_s", 0.0) for r in rows), default=0.0),
        "median_relaxation_classes": statistics.median(
            [r["model"].get("relaxation", {}).get("classes", 0) for r in rows]
        ),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[300, 1000, 3000])
    ap.add_argument("--pairs", type=int, default=20, help="(program, profile) pairs per size")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=None, help="seconds per solve (default 60)")
    ap.add_argument(
        "--before",
        type=Path,
        default=None,
        help="a checkout of the code to compare against (e.g. a worktree of main)",
    )
    ap.add_argument("--work", type=Path, default=Path("runs/bench-planner-scaling"))
    args = parse(ap, "planner_scaling")  # fmt: skip
    args.work.mkdir(parents=True, exist_ok=True)
    arms = {"after": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    sizes: dict[int, dict[str, Any]] = {}
    for n in args.sizes:
        sizes[n] = {}
        for name in sorted(arms):  # before, then after
            rows = run_arm(arms[name], n, args.pairs, args.seed, args.budget,
                           args.work / f"{name}-c{n}.jsonl")  # fmt: skip
            sizes[n][name] = {"summary": summarize(rows), "rows": rows}
    result = {
        "config": {"pairs": args.pairs, "seed": args.seed, "budget_s": args.budget or 60.0},
        "sizes": sizes,
    }
    write_results("planner_scaling", result, render(result), overwrite=args.overwrite,
                  results=args.results)  # fmt: skip


def _cell(s: dict[str, Any] | None, key: str) -> str:
    return "-" if not s else f"{s[key]:g}"


def render(result: dict[str, Any]) -> str:
    c = result["config"]
    lines = [
        "# Planner scaling (synthetic catalogs)",
        "",
        f"The ladder alone, top-1, {c['pairs']} requests per size, seed {c['seed']}, budget "
        f"{c['budget_s']:g} s per request: before, wall-clock seconds (the code as it was); "
        "after, CP-SAT deterministic seconds (its own work measure, the same on a loaded "
        "machine). Every plan checked by the independent verifier. Model: the largest "
        "term-indexed model the ladder built (course x term variables, `x`); after, the "
        "bound-first ladder also builds a relaxation with one Boolean and one term per class.",
        "",
        "| courses | arm | certified | proven infeasible | uncertified | median wall s "
        "| p95 wall s | median det. s | median x | max x | max build s |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for n, arms in result["sizes"].items():
        for name in ("before", "after"):
            if name not in arms:
                continue
            s = arms[name]["summary"]
            lines.append(
                f"| {n} | {name} | {s['certified']}/{s['pairs']} | {s['infeasible']} | "
                f"{s['uncertified']} | {_cell(s['wall_s'], 'median')} | "
                f"{_cell(s['wall_s'], 'p95')} | {_cell(s['deterministic_s'], 'median')} | "
                f"{_cell(s['x'], 'median')} | {_cell(s['x'], 'max')} | {s['max_build_s']:g} |"
            )
    lines += ["", "## Every request", ""]
    for n, arms in result["sizes"].items():
        lines += [
            f"### {n} courses",
            "",
            "| pair | program | before | x | wall s | after | x | wall s | det. s |",
            "| ---: | --- | --- | ---: | ---: | --- | ---: | ---: | ---: |",
        ]
        before = {r["pair"]: r for r in arms.get("before", {}).get("rows", [])}
        for r in arms["after"]["rows"]:
            b = before.get(r["pair"])
            lines.append(
                f"| {r['pair']} | {r['program']} | {_state(b)} | "
                f"{b['model'].get('x', '-') if b else '-'} | {b['wall_s'] if b else '-'} | "
                f"{_state(r)} | {r['model'].get('x', '-')} | {r['wall_s']} | "
                f"{r['deterministic_s']} |"
            )
        lines.append("")
    return "\n".join(lines)


def _state(r: dict[str, Any] | None) -> str:
    if r is None:
        return "-"
    if r["certified"]:
        return "certified"
    if r["status"] == "infeasible":
        return "infeasible"
    return f"uncertified ({r['stage'] or r['status']})"


if __name__ == "__main__":
    main()
