"""Demo stages that drive the browser: teacher rollouts on training and held-out seeds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_runtime.runner.batch import run_batch
from agent_runtime.runner.config import RunConfig
from agent_runtime.runner.factories import resources_for
from agent_runtime.runner.report import format_table, per_task
from agent_runtime.runner.traces import load_outcomes
from envs.miniwob.contracts import miniwob_contracts, parse_seeds, write_contracts
from pathwise.demo.config import DemoConfig


def teacher_run(
    cfg: DemoConfig, seeds: str, stage_dir: Path, tasks: list[str] | None = None
) -> dict[str, Any]:
    contracts = miniwob_contracts(tasks or cfg.tasks, parse_seeds(seeds))
    cfile = stage_dir / "contracts.jsonl"
    if not cfile.exists():
        write_contracts(contracts, cfile)
    run_dir = stage_dir / "run"
    rc = RunConfig(workers=cfg.workers)
    run_batch(contracts, run_dir, rc, resources=resources_for(rc, contracts))
    table = per_task(load_outcomes(run_dir))
    print(format_table(table))
    episodes = sum(r["episodes"] for r in table.values())
    successes = sum(r["successes"] for r in table.values())
    return {
        "run_dir": str(run_dir),
        "contracts": str(cfile),
        "tasks": table,
        "episodes": episodes,
        "successes": successes,
        "success_rate": successes / episodes if episodes else 0.0,
    }
