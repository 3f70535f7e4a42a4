"""`pathwise bench miniwob`: per-task success of a policy on seeded MiniWoB++ episodes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


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
) -> None:
    """Run seeded MiniWoB++ episodes through the runner in headless Chromium.

    Success is the page's own raw reward of 1. Episodes go through the same rule top,
    guards and executor as `pathwise run`; with --out the traces are kept and resumable.
    """
    from envs.miniwob.contracts import parse_seeds
    from envs.miniwob.task import available_tasks
    from envs.miniwob.tasks import claimed_tasks

    names = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else claimed_tasks()
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

    cfg = RunConfig(workers=workers, screenshots=screenshots)
    results = run_miniwob(names, seed_list, out=out, cfg=cfg, progress=not as_json)
    summary = {
        "tasks": {
            t: {"episodes": len(eps), "successes": sum(o.success for o in eps)}
            for t, eps in results.items()
        }
    }
    if out is not None:
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if as_json:
        print(json.dumps(summary))
    else:
        print(format_table(summary["tasks"]))


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    bench_app.command("miniwob")(bench_miniwob)
