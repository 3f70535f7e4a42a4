"""`pathwise catalog eval`: CatalogBrowse's documents scored against a snapshot's gold."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from common.cli import fail


def evaluate(
    gold: Path = typer.Option(..., help="gold directory (OUT/gold of a snapshot)"),
    docs: Path = typer.Option(..., help="a run directory with the three documents"),
    snapshot: Path = typer.Option(None, help="the snapshot (default: GOLD/../site)"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object on stdout"),
) -> None:
    """Inventory recall, typed P/R/F1, normalized AST equivalence, masked recovery."""
    from evals.catalog.metrics import score
    from planner.documents import DocumentError

    try:
        s = score(gold, docs, snapshot or gold.parent / "site")
    except (DocumentError, FileNotFoundError) as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps(s))
        return
    for k, v in s.items():
        typer.echo(f"{k:24s} {v:.4f}" if isinstance(v, float) else f"{k:24s} {v}")


def register(catalog_app: typer.Typer) -> None:
    catalog_app.command("eval")(evaluate)
