"""Resumable stages: each writes into OUT/<stage>/ and marks itself done with a summary."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

DONE = "stage.json"


def run_stage(
    out: Path, name: str, fn: Callable[[Path], dict[str, Any]], label: str = "demo"
) -> dict[str, Any]:
    """Run `fn(stage_dir)` unless a previous run finished it; record wall time."""
    stage_dir = out / name
    marker = stage_dir / DONE
    if marker.exists():
        summary = json.loads(marker.read_text())
        typer.echo(f"[{label}] {name}: done earlier ({summary.get('seconds', 0):.0f} s), skipping")
        return summary
    stage_dir.mkdir(parents=True, exist_ok=True)
    typer.echo(f"[{label}] {name}: running")
    t0 = time.monotonic()
    summary = fn(stage_dir)
    summary["seconds"] = time.monotonic() - t0
    tmp = marker.with_suffix(".tmp")
    tmp.write_text(json.dumps(summary, indent=2, default=str))
    tmp.replace(marker)
    typer.echo(f"[{label}] {name}: done in {summary['seconds']:.0f} s")
    return summary
