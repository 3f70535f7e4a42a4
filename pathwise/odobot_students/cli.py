"""`pathwise odobot train`: the OdoBot study's two students (mounted here because it needs the
study's runs, the exporter and the trainer: every room but this one is below one of them)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from common.cli import fail
from odobot.cli import LimitOpt, MatcherOpt, OutOpt, config_for, counter_for


def train_cmd(
    out: OutOpt = Path("runs/odobot"),
    limit: LimitOpt = None,
    matcher: MatcherOpt = "auto",
    max_steps: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Train each student this many steps (quick runs); default: the recipes' own.",
        ),
    ] = None,
) -> None:
    """Train both students: training runs on the training worlds, two SFT datasets (refused if
    a held-out task or value is in them), SmolLM2-135M-Instruct, a LoRA each through `pathwise
    train`, merged. Every stage is resumable; `pathwise odobot run` then serves them."""
    from pathwise.odobot_students.pipeline import StudentsSpec, train_students

    cfg = config_for(out, limit, matcher)
    t0 = time.perf_counter()
    try:
        stages = train_students(out, cfg, counter_for(out), StudentsSpec(max_steps=max_steps))
    except (ValueError, RuntimeError, OSError) as e:
        fail(e)
    for agent in ("odobot", "baseline"):
        st = stages[agent]
        losses = st["train_losses"]
        typer.echo(
            f"{agent} student: {st['global_step']} steps ({st['precision']}), loss "
            f"{losses[0]:.3f} -> {losses[-1]:.3f}, {stages['export'][agent]['splits']['train']} "
            f"records -> {st['model']}"
        )
    seconds = {k: round(v.get("seconds", 0)) for k, v in stages.items()}
    typer.echo(f"stages (s): {seconds}; this call {time.perf_counter() - t0:.0f} s")


def register(odobot_app: typer.Typer) -> None:
    odobot_app.command("train")(train_cmd)
