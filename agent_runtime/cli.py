"""Mounts the runtime's sub-commands; each lives beside the code it drives."""

from __future__ import annotations

import typer


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    from agent_runtime.guards import cli as guards_cli
    from agent_runtime.runner import bench_cli as envs_cli
    from agent_runtime.runner import cli as runner_cli
    from envs.sites import cli as sites_cli

    guards_cli.register(app, bench_app)  # pathwise guards check
    envs_cli.register(app, bench_app)  # pathwise bench miniwob
    runner_cli.register(app, bench_app)  # pathwise run, pathwise schemas
    sites_cli.register(app, bench_app)  # pathwise sites generate|check|serve
