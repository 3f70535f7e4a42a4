"""How the planner's cost grows with catalog size: KnowPlan, DegreeMap "Exact planning" (the
60 s budget) on synthetic catalogs of 300, 1,000 and 3,000 courses: the ladder before and after
a change, and the single weighted sum after it, side by side in one run.

    git worktree add /tmp/planner-before main
    .venv/bin/python -m benchmarks.bench_planner_scaling --before /tmp/planner-before \\
        [--sizes 300 1000 3000] [--pairs 20]
    git worktree remove /tmp/planner-before

Each arm runs benchmarks/planner_arm.py in its own process with its tree's `planner` first on
the path (the before arm: the checkout given; the after and weighted-sum arms: this one), every
request verified. Per size, two processes run at once, one per core: the before arm, and the
after arm followed by the weighted sum (each single-threaded). Writes
benchmarks/results/planner_scaling.{json,md} (every request's row included). Resumable: each
arm checkpoints its rows in WORK/{arm}-cN.jsonl and a rerun skips them, so the sizes can be
run one at a time (each under its own exclusive lock) and the last run renders them all.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchmarks.harness import parse, spread, write_results

ROOT = Path(__file__).resolve().parent.parent
ARM = Path(__file__).resolve().parent / "planner_arm.py"


# Arm name -> the planner method its process runs.
METHOD = {"before": "ladder", "after": "ladder", "weighted_sum": "weighted_sum"}


def run_arm(tree: Path, name: str, courses: int, pairs: int, seed: int, budget: float | None,
            rows: Path, render_only: bool = False) -> list[dict[str, Any]]:  # fmt: skip
    if render_only:
        if not rows.exists():
            return []
        out = [json.loads(line) for line in rows.read_text().splitlines() if line]
        return sorted((r for r in out if r["pair"] < pairs), key=lambda r: r["pair"])
    cmd = [sys.executable, str(ARM), "--courses", str(courses), "--pairs", str(pairs)]
    cmd += ["--seed", str(seed), "--rows", str(rows), "--method", METHOD[name]]
    cmd += ["--budget", str(budget)] if budget is not None else []
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    out = [json.loads(line) for line in rows.read_text().splitlines() if line]
    return sorted((r for r in out if r["pair"] < pairs), key=lambda r: r["pair"])


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts, wall and deterministic seconds over every request, and model sizes (rows of
    an arm that only built models: sizes alone)."""
    solved = [r for r in rows if r["status"] != "not solved"]
    if not solved:
        xs = [r["model"].get("x", 0) for r in rows]
        return {"pairs": len(rows), "solved": False, "x": spread(xs, digits=0),
                "max_build_s": max(r["model"].get("build_s", 0.0) for r in rows)}  # fmt: skip
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
    ap.add_argument(
        "--before-pairs",
        type=int,
        default=None,
        help="only the first N pairs in the before arm (its wall-clock budget makes it the "
        "slowest: 60 s for every request it does not certify); default all",
    )
    ap.add_argument(
        "--weighted-pairs",
        type=int,
        default=None,
        help="only the first N pairs in the weighted-sum arm (it spends most of its budget "
        "on every request at 1,000 courses and up); default all",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=None, help="seconds per solve (default 60)")
    ap.add_argument(
        "--before",
        type=Path,
        default=None,
        help="a checkout of the code to compare against (e.g. a worktree of main)",
    )
    ap.add_argument("--work", type=Path, default=Path("runs/bench-planner-scaling"))
    ap.add_argument(
        "--render-only",
        action="store_true",
        help="solve nothing: render the rows already checkpointed in WORK",
    )
    args = parse(ap, "planner_scaling")  # fmt: skip
    args.work.mkdir(parents=True, exist_ok=True)
    trees = {"after": ROOT, "weighted_sum": ROOT}
    if args.before:
        trees["before"] = args.before.resolve()
    # One process per core: the before arm beside the after arm and then the weighted sum.
    lanes = [[a for a in lane if a in trees] for lane in (["before"], ["after", "weighted_sum"])]
    arm_pairs = {
        "before": args.before_pairs or args.pairs,
        "after": args.pairs,
        "weighted_sum": args.weighted_pairs or args.pairs,
    }
    sizes: dict[int, dict[str, Any]] = {}
    for n in args.sizes:

        def lane_rows(lane: list[str], n: int = n) -> dict[str, list[dict[str, Any]]]:
            return {
                name: run_arm(
                    trees[name],
                    name,
                    n,
                    arm_pairs[name],
                    args.seed,
                    args.budget,
                    args.work / f"{name}-c{n}.jsonl",
                    args.render_only,
                )
                for name in lane
            }

        with ThreadPoolExecutor(len(lanes)) as pool:
            done = [r for lane in pool.map(lane_rows, lanes) for r in lane.items()]
        sizes[n] = {name: {"summary": summarize(rows), "rows": rows} for name, rows in done if rows}
    result = {
        "config": {
            "pairs": args.pairs,
            "before_pairs": arm_pairs["before"],
            "weighted_pairs": arm_pairs["weighted_sum"],
            "seed": args.seed,
            "budget_s": args.budget or 60.0,
        },
        "sizes": sizes,
    }
    write_results("planner_scaling", result, render(result), overwrite=args.overwrite,
                  results=args.results)  # fmt: skip


def _cell(s: dict[str, Any] | None, key: str) -> str:
    return "-" if not s else f"{s[key]:g}"


ARM_LABEL = {"before": "ladder, before", "after": "ladder, after", "weighted_sum": "weighted sum"}


def render(result: dict[str, Any]) -> str:
    c = result["config"]
    lines = [
        "# Planner scaling (synthetic catalogs)",
        "",
        f"Top-1, {c['pairs']} requests per size (the before arm: the first "
        f"{c.get('before_pairs', c['pairs'])}; the weighted sum: the first "
        f"{c.get('weighted_pairs', c['pairs'])}), seed {c['seed']}, budget {c['budget_s']:g} s "
        "per request. Ladder before: the code as it was (a wall-clock budget); ladder after and "
        "the single weighted sum: this code (a budget in CP-SAT deterministic seconds, its own "
        "work measure, the same on a loaded machine). Every plan checked by the independent "
        "verifier. x: course x term variables of the largest term-indexed model the solve built "
        "(after, the ladder also builds a time-free relaxation with one Boolean per class).",
        "",
        "| courses | arm | certified | proven infeasible | uncertified | median wall s "
        "| p95 wall s | median det. s | median x | max x | max build s |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for n, arms in result["sizes"].items():
        for name in ("before", "after", "weighted_sum"):
            if name not in arms:
                continue
            s = arms[name]["summary"]
            if s.get("solved") is False:
                lines.append(
                    f"| {n} | {ARM_LABEL[name]} | not solved ({s['pairs']} models built) | - "
                    f"| - | - | - | - | {_cell(s['x'], 'median')} | {_cell(s['x'], 'max')} | "
                    f"{s['max_build_s']:g} |"
                )
                continue
            lines.append(
                f"| {n} | {ARM_LABEL[name]} | {s['certified']}/{s['pairs']} | {s['infeasible']} | "
                f"{s['uncertified']} | {_cell(s['wall_s'], 'median')} | "
                f"{_cell(s['wall_s'], 'p95')} | {_cell(s['deterministic_s'], 'median')} | "
                f"{_cell(s['x'], 'median')} | {_cell(s['x'], 'max')} | {s['max_build_s']:g} |"
            )
    lines += ["", "## Every request", ""]
    for n, arms in result["sizes"].items():
        by = {a: {r["pair"]: r for r in arms[a]["rows"]} for a in arms}
        lines += [
            f"### {n} courses",
            "",
            "| pair | program | before | x | wall s | after | x | wall s | det. s "
            "| weighted sum | x | det. s |",
            "| ---: | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: |",
        ]
        for r in arms["after"]["rows"]:
            b, w = by.get("before", {}).get(r["pair"]), by.get("weighted_sum", {}).get(r["pair"])
            lines.append(
                f"| {r['pair']} | {r['program']} | {_state(b)} | {_x(b)} | "
                f"{_wall(b)} | {_state(r)} | {_x(r)} | {r['wall_s']} | "
                f"{r['deterministic_s']} | {_state(w)} | {_x(w)} | "
                f"{w['deterministic_s'] if w else '-'} |"
            )
        lines.append("")
    return "\n".join(lines)


def _wall(r: dict[str, Any] | None) -> Any:
    return r["wall_s"] if r and r["wall_s"] is not None else "-"


def _x(r: dict[str, Any] | None) -> Any:
    return r["model"].get("x", "-") if r else "-"


def _state(r: dict[str, Any] | None) -> str:
    if r is None:
        return "-"
    if r["status"] == "not solved":
        return "not solved"
    if r["certified"]:
        return "certified"
    if r["status"] == "infeasible":
        return "infeasible"
    return f"uncertified ({r['stage'] or r['status']})"


if __name__ == "__main__":
    main()
