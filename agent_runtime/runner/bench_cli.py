"""`pathwise bench miniwob`: per-task success of a policy on seeded MiniWoB++ episodes.

With --results it writes the teacher's table (benchmarks/results/teacher.{json,md}): per task
the rate, mean steps and seconds, the failed seeds, and whether the task is claimed.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from common.cli import Overwrite, Results, refuse_results


def bench_miniwob(
    policy: Annotated[str, typer.Option(help="teacher = rule top + heuristic middle.")] = "teacher",
    tasks: Annotated[
        str | None, typer.Option(help="Comma-separated task names (default: the claimed list).")
    ] = None,
    seeds: Annotated[str, typer.Option(help="Seeds, e.g. 100-119 or 1,5,9.")] = "100-119",
    as_json: Annotated[
        bool, typer.Option("--json", help='Print one JSON object {"tasks": {...}} only.')
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(help="Run folder to keep the traces (resumable); default: a temp folder."),
    ] = None,
    workers: Annotated[int, typer.Option(min=1, help="Parallel browsers.")] = 1,
    screenshots: Annotated[bool, typer.Option(help="Write labeled PNGs with the traces.")] = False,
    unclaimed: Annotated[
        bool,
        typer.Option(
            "--with-unclaimed", help="Also run the tasks measured and left out (NOT_CLAIMED)."
        ),
    ] = False,
    results: Results = None,
    overwrite: Overwrite = False,
) -> None:
    """Run seeded MiniWoB++ episodes through the runner in headless Chromium.

    Success is the page's own raw reward of 1. Episodes go through the same rule top,
    guards and executor as `pathwise run`; with --out the traces are kept and resumable.
    The teacher's table: --with-unclaimed --results benchmarks/results/teacher (about 3 min).
    """
    from envs.miniwob.contracts import parse_seeds
    from envs.miniwob.task import available_tasks
    from envs.miniwob.tasks import NOT_CLAIMED, claimed_tasks

    names = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else claimed_tasks()
    if unclaimed:
        names += [t for t in NOT_CLAIMED if t not in names]
    unknown = [t for t in names if t not in available_tasks()]
    if unknown:
        raise typer.BadParameter(
            f"unknown MiniWoB task(s): {', '.join(unknown)}", param_hint="--tasks"
        )
    try:
        seed_list = parse_seeds(seeds)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--seeds") from None
    if policy != "teacher":
        raise typer.BadParameter(
            f"unknown policy {policy!r}; known: teacher", param_hint="--policy"
        )

    from agent_runtime.runner.config import RunConfig
    from agent_runtime.runner.miniwob_batch import run_miniwob
    from agent_runtime.runner.report import format_table

    refuse_results(results, overwrite)
    cfg = RunConfig(workers=workers, screenshots=screenshots)
    t0 = time.perf_counter()
    outcomes = run_miniwob(names, seed_list, out=out, cfg=cfg, progress=not as_json)
    wall = time.perf_counter() - t0
    summary = {
        "tasks": {
            t: {"episodes": len(eps), "successes": sum(o.success for o in eps)}
            for t, eps in outcomes.items()
        }
    }
    if results is not None:
        from common.results import write_results

        doc = teacher_table(outcomes, seeds, wall)
        write_results(results, doc, teacher_markdown(doc), overwrite=overwrite)
    if out is not None:
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if as_json:
        print(json.dumps(summary))
    else:
        print(format_table(summary["tasks"]))


def teacher_table(outcomes: dict[str, list[Any]], seeds: str, wall_s: float) -> dict[str, Any]:
    """Per-task rates of a run, and the claimed tasks' totals (the >= 95% claim)."""
    from envs.miniwob.tasks import CLAIMED_TASKS

    rows = {}
    for task, eps in outcomes.items():
        k = sum(r.success for r in eps)
        rows[task] = {
            "episodes": len(eps),
            "successes": k,
            "rate": k / len(eps),
            "claimed": task in CLAIMED_TASKS,
            "mean_steps": sum(r.steps for r in eps) / len(eps),
            "mean_episode_s": sum(r.duration_s for r in eps) / len(eps),
            "failed_seeds": [r.seed for r in eps if not r.success],
        }
    claimed = [r for r in rows.values() if r["claimed"]]
    return {
        "benchmark": "teacher_miniwob",
        "policy": "teacher (rule top + heuristic middle)",
        "seeds": seeds,
        "wall_s": round(wall_s, 1),
        "claimed_tasks": len(claimed),
        "claimed_at_95": sum(r["rate"] >= 0.95 for r in claimed),
        "claimed_episodes": sum(r["episodes"] for r in claimed),
        "claimed_successes": sum(r["successes"] for r in claimed),
        "tasks": rows,
    }


def teacher_markdown(doc: dict[str, Any]) -> str:
    lines = [
        "# Scripted teacher on MiniWoB++",
        "",
        f"Policy: rule top + heuristic middle. Seeds {doc['seeds']} per task; success = the page's",
        f"raw reward of 1. Claimed tasks at >= 95%: {doc['claimed_at_95']}/{doc['claimed_tasks']};",
        f"claimed episodes solved: {doc['claimed_successes']}/{doc['claimed_episodes']}. "
        f"Wall time {doc['wall_s']} s.",
        "",
        "| task | claimed | successes / episodes | rate | mean steps | mean s/episode |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for t, r in doc["tasks"].items():
        lines.append(
            f"| {t} | {'yes' if r['claimed'] else 'no'} | {r['successes']}/{r['episodes']} "
            f"| {100 * r['rate']:.0f}% | {r['mean_steps']:.1f} | {r['mean_episode_s']:.2f} |"
        )
    return "\n".join(lines)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    bench_app.command("miniwob")(bench_miniwob)
