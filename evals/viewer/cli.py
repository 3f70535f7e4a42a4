"""`pathwise view RUN_DIR [RUN_DIR ...]`: the trace viewer on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def view(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run folders written by `pathwise run` / `bench`.")
    ],
    contracts: Annotated[
        list[Path] | None,
        typer.Option(
            help="Contract file (JSONL) to show full contracts from; repeatable. A "
            "contracts.jsonl in or beside a run folder is read anyway."
        ),
    ] = None,
    port: Annotated[int, typer.Option(min=0, help="Port on 127.0.0.1 (0: a free one).")] = 0,
) -> None:
    """Browse rollouts step by step: runs with success, CGS gates and access/runtime labels;
    one rollout with its labelled screenshots, top state, raw middle output beside the post-guard
    action and guard labels, events, expected vs observed next state (keys: left/right or j/k);
    and two runs of the same contracts side by side with the first divergent step marked.

    The server binds 127.0.0.1 only, re-reads traces on every page (a running batch shows up as
    it writes) and never writes into a run folder. Ctrl-C stops it.
    """
    from envs.webapp import AppServer
    from evals.viewer.app import create_app

    for d in run_dirs:
        if not d.is_dir():
            typer.echo(f"error: {d}: not a run folder (no such directory)", err=True)
            raise typer.Exit(2)
    for c in contracts or []:
        if not c.is_file():
            typer.echo(f"error: {c}: no such contract file", err=True)
            raise typer.Exit(2)
    server = AppServer(create_app(run_dirs, contracts or []), port=port).start()
    typer.echo(f"trace viewer on {server.url}  ({len(run_dirs)} run(s); Ctrl-C to stop)")
    server.serve_forever()
