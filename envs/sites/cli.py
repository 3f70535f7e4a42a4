"""`pathwise sites generate | serve | check`: contract-site data, contracts, audit, servers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

sites_app = typer.Typer(
    help="Contract sites (shop, directory, booking, docs): generate, audit, serve.",
    no_args_is_help=True,
)
WORLD_FILE = "world.json"


@sites_app.command("generate")
def generate(
    out: Annotated[Path, typer.Option(help="New folder for data, contracts, splits and audit.")],
    seed: Annotated[int, typer.Option(help="World seed (recorded in every contract).")] = 20260614,
) -> None:
    """Generate the four sites' data, 64 base tasks with gold, their persona contracts, the
    base-task-grouped train/dev/test split and the Table 10 audit. Never overwrites OUT.

    OUT/world.json is the environment's file (site data, base tasks, gold); the agent reads only
    the contract files OUT/contracts/{all,train,dev,test}.jsonl.
    """
    from envs.miniwob.contracts import write_contracts
    from envs.sites.audit import audit_markdown, audit_world
    from envs.sites.pairing import split_of, world_contracts
    from envs.sites.world import generate_world
    from envs.webapp import write_model_file

    if out.exists() and any(out.iterdir()):
        typer.echo(f"error: {out} is not empty; generated files are never overwritten", err=True)
        raise typer.Exit(2)
    world = generate_world(seed)
    contracts = world_contracts(world)
    report = audit_world(world, contracts)
    write_model_file(out / WORLD_FILE, world)
    split = split_of(world)
    write_contracts(contracts, out / "contracts" / "all.jsonl")
    for name in ("train", "dev", "test"):
        write_contracts(
            [c for c in contracts if split[c.base_task_id] == name],
            out / "contracts" / f"{name}.jsonl",
        )
    (out / "audit.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "audit.md").write_text(audit_markdown(report))
    typer.echo(
        f"{report['base_tasks']} base tasks, {report['contracts']} contracts on "
        f"{report['websites']} sites; "
        f"task audit {report['task_audit_pass']}/{report['base_tasks']}, pairing audit "
        f"{report['pairing_audit_pass']}/{report['contracts']}; "
        f"split {report['strata']['split_contracts']}"
    )
    if report["task_failures"] or report["pairing_failures"]:
        raise typer.Exit(1)


@sites_app.command("check")
def check(file: Annotated[Path, typer.Argument(help="A world.json to validate.")]) -> None:
    """Validate a site data file; a bad one is named with its field (exit 2)."""
    from envs.sites.model import World
    from envs.webapp import DataFileError, load_model_file

    try:
        world = load_model_file(file, World)
    except DataFileError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"{file}: {len(world.sites)} sites, {len(world.tasks)} base tasks: valid")


@sites_app.command("serve")
def serve(
    seed: Annotated[int, typer.Option(help="World seed.")] = 20260614,
    data: Annotated[Path | None, typer.Option(help="A world.json instead of the seed.")] = None,
) -> None:
    """Serve every site and the search/maps provider on 127.0.0.1 until Ctrl-C (for a look)."""
    import time

    from envs.sites.runtime import SiteWorld, load_world
    from envs.webapp import DataFileError

    try:
        world = load_world(seed, data) if data else load_world(seed)
    except (DataFileError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    with SiteWorld(world) as w:
        for name, url in w.urls.items():
            typer.echo(f"{name:<10} {url}")
        typer.echo(
            f"{'search':<10} {w.search_url}/search?q=...   maps: {w.search_url}/maps?q=...&near=..."
        )
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            pass


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(sites_app, name="sites")
