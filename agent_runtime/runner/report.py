"""Per-task success tables from a run folder's outcome rows."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import typer

from agent_runtime.runner.traces import load_outcomes
from contracts.step_row import RolloutOutcome


def per_task(outcomes: list[RolloutOutcome]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = defaultdict(lambda: {"episodes": 0, "successes": 0})
    for o in outcomes:
        key = o.task or o.contract.base_task_id
        table[key]["episodes"] += 1
        table[key]["successes"] += int(o.success)
    return dict(sorted(table.items()))


def format_table(table: dict[str, dict[str, int]]) -> str:
    width = max([len(t) for t in table] + [4])
    lines = [f"{'task':<{width}}  episodes  successes  rate", "-" * (width + 28)]
    tot_e = tot_s = 0
    for task, row in table.items():
        e, s = row["episodes"], row["successes"]
        tot_e, tot_s = tot_e + e, tot_s + s
        lines.append(
            f"{task:<{width}}  {e:>8}  {s:>9}  {s / e:>5.0%}" if e else f"{task:<{width}}  0"
        )
    if tot_e:
        lines.append("-" * (width + 28))
        lines.append(f"{'all':<{width}}  {tot_e:>8}  {tot_s:>9}  {tot_s / tot_e:>5.0%}")
    return "\n".join(lines)


def print_outcome_table(run_dir: Path) -> None:
    outcomes = load_outcomes(run_dir)
    typer.echo(format_table(per_task(outcomes)))
    blocked = sum(o.access_failure is not None for o in outcomes)
    crashed = sum(o.terminal == "runtime_failure" for o in outcomes)
    if blocked or crashed:
        typer.echo(f"access-blocked: {blocked}  runtime failures: {crashed}")
