"""`pathwise demo`: the main job, resumable stage by stage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def demo(
    recipe: Annotated[
        str, typer.Option(help="Demo recipe name (pathwise/demo/recipes) or a YAML path.")
    ] = "smollm2-cpu",
    out: Annotated[
        Path, typer.Option(help="Output folder; rerunning resumes finished stages.")
    ] = Path("runs/demo"),
) -> None:
    """Teacher rollouts on MiniWoB++ -> SFT export -> student training -> vLLM -> offline and
    live evaluation -> report.md / report.json. Every stage is resumable."""
    from pathwise.demo.config import load_demo_config
    from pathwise.demo.pipeline import run_pipeline

    try:
        cfg = load_demo_config(recipe)
    except (FileNotFoundError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    report = run_pipeline(cfg, out)
    typer.echo(json.dumps(report.get("headline", {}), indent=2))


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
