"""`pathwise run`, `pathwise contracts ...` and `pathwise schemas export`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_runtime.runner.config import MiddleSpec
from agent_runtime.runner.options import middle_options
from common.cli import StepCap, fail

contracts_app = typer.Typer(
    help="Make and audit intent-contract files (JSONL).", no_args_is_help=True
)
schemas_app = typer.Typer(
    help="Export the versioned JSON Schemas of every contract.", no_args_is_help=True
)


@middle_options
def run(
    contracts: Annotated[
        Path, typer.Option(help="Contract file (JSONL, one IntentContract per line).")
    ],
    out: Annotated[Path, typer.Option(help="Run folder; rerunning the same command resumes it.")],
    middle: MiddleSpec,
    policy: Annotated[
        str, typer.Option(help="teacher (rule top + heuristic middle) or endpoint.")
    ] = "teacher",
    top: Annotated[
        str, typer.Option(help="rule, or llm (PATHWISE_TOP_BASE_URL/MODEL/API_KEY).")
    ] = "rule",
    workers: Annotated[
        int, typer.Option(min=1, help="Parallel browsers; one active rollout per site.")
    ] = 1,
    shard: Annotated[
        str | None, typer.Option(help="i/n: run only this shard of the contract file.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Scheduling seed (Table 22).")] = 20260612,
    step_cap: StepCap = 20,
    timeout: Annotated[float, typer.Option(help="Seconds per rollout (Table 19).")] = 900.0,
    retries: Annotated[int, typer.Option(min=0, help="Retries after a runtime failure.")] = 1,
    screenshots: Annotated[bool, typer.Option(help="Write a labeled PNG per step.")] = True,
) -> None:
    """Run contracts through the guarded hierarchy in headless Chromium and write step-row traces.

    Traces are append-only JSONL under OUT/traces/, screenshots under OUT/screenshots/,
    browser events under OUT/events/. A killed run loses nothing already written; the
    same command resumes it and skips finished rollouts. Shards of one contract file
    (`--shard i/n`, any number started at once, e.g. as a scheduler's array job) share one
    OUT folder.
    """
    from pydantic import ValidationError

    from agent_runtime.runner.batch import RunDirError, run_batch
    from agent_runtime.runner.config import RunConfig, TopSpec
    from agent_runtime.runner.factories import ready, resources_for
    from agent_runtime.runner.report import print_outcome_table
    from common.loading import validation_message
    from contracts.intent import ContractFileError, load_contracts
    from serving.client import EndpointAuthError

    try:
        items = load_contracts(contracts)
    except ContractFileError as e:
        fail(e)
    if policy not in ("teacher", "endpoint"):
        raise typer.BadParameter("--policy must be teacher or endpoint")
    if policy == "endpoint" and middle.kind != "endpoint":
        raise typer.BadParameter("--policy endpoint needs --endpoint and --model")
    try:
        cfg = ready(
            RunConfig(
                step_cap=step_cap,
                timeout_s=timeout,
                retries=retries,
                workers=workers,
                seed=seed,
                shard=shard,
                screenshots=screenshots,
                top=TopSpec(kind="llm" if top == "llm" else "rule"),
                middle=middle if policy == "endpoint" else MiddleSpec(),
            )
        )
        run_batch(items, out, cfg, resources=resources_for(cfg, items))
    except ValidationError as e:
        fail(f"run settings: {validation_message(e)}")
    except (RunDirError, EndpointAuthError, ValueError) as e:
        fail(e)
    print_outcome_table(out)


@contracts_app.command("miniwob")
def contracts_miniwob(
    tasks: Annotated[str, typer.Option(help="Comma-separated MiniWoB++ task names.")],
    seeds: Annotated[str, typer.Option(help="Seeds, e.g. 100-119 or 1,2,3.")],
    out: Annotated[Path, typer.Option(help="Contract file to create (never overwritten).")],
) -> None:
    """Write one intent contract per (task, seed)."""
    from envs.miniwob.contracts import miniwob_contracts, parse_seeds, write_contracts
    from envs.miniwob.task import available_tasks

    names = [t.strip() for t in tasks.split(",")]
    if not all(names):
        fail(f"--tasks {tasks!r}: an empty task name (a stray comma)")
    unknown = [t for t in names if t not in available_tasks()]
    if unknown:
        fail(f"--tasks: {unknown[0]!r} is not a MiniWoB++ task of the installed wheel")
    try:
        n = write_contracts(miniwob_contracts(dict.fromkeys(names), parse_seeds(seeds)), out)
    except ValueError as e:
        fail(f"--seeds: {e}")
    except FileExistsError:
        fail(f"{out} exists; contract files are never overwritten")
    typer.echo(f"wrote {n} contracts to {out}")


@contracts_app.command("audit")
def contracts_audit(file: Annotated[Path, typer.Argument(help="Contract file (JSONL).")]) -> None:
    """Table 10 audit: print each contract's named failures; exit 1 if any fails."""
    from contracts.audit import audit_contract
    from contracts.intent import ContractFileError, load_contracts

    try:
        items = load_contracts(file)
    except ContractFileError as e:
        fail(e)
    failed = 0
    for c in items:
        failures = audit_contract(c)
        if failures:
            failed += 1
            typer.echo(f"{c.contract_id}: " + ", ".join(f.value for f in failures))
    typer.echo(f"{len(items) - failed}/{len(items)} contracts pass the audit")
    if failed:
        raise typer.Exit(1)


@schemas_app.command("export")
def schemas_export(
    out: Annotated[Path, typer.Argument(help="Folder for *.schema.json files.")],
) -> None:
    """Write every contract's JSON Schema (versioned) to OUT."""
    from contracts.schemas import export_schemas

    for p in export_schemas(out):
        typer.echo(str(p))


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command("run")(run)
    app.add_typer(contracts_app, name="contracts")
    app.add_typer(schemas_app, name="schemas")
