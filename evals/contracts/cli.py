"""`pathwise bench contracts`: contract-gated success of a policy on contract-site contracts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from common.cli import AsJson, Endpoint, GroundedSchema, ServedModel, StepCap


def bench_contracts(
    contracts: Annotated[Path, typer.Option(help="Contract file (e.g. OUT/contracts/test.jsonl).")],
    out: Annotated[
        Path, typer.Option(help="Folder: run/ (resumable traces), results.json, report.md.")
    ],
    policy: Annotated[
        str,
        typer.Option(help="teacher (contract top + heuristic middle), llm (LLM top) or endpoint."),
    ] = "teacher",
    endpoint: Endpoint = None,
    model: ServedModel = None,
    grounded_schema: GroundedSchema = False,
    workers: Annotated[
        int, typer.Option(min=1, help="Parallel browsers (one rollout per site).")
    ] = 2,
    step_cap: StepCap = 20,
    screenshots: Annotated[bool, typer.Option(help="Write labeled PNGs with the traces.")] = False,
    as_json: AsJson = False,
) -> None:
    """Run the contracts (rerun the same command to resume), then score CGS and every gate under
    the All / Unblocked / Clean denominators, Table 14's counterfactual statistics per base task,
    and time per rollout. Writes OUT/results.json and OUT/report.md."""
    from agent_runtime.runner.batch import RunDirError, run_batch
    from agent_runtime.runner.config import MiddleSpec, RunConfig, TopSpec
    from agent_runtime.runner.factories import resources_for
    from contracts.intent import ContractFileError, load_contracts
    from evals.contracts.bench import score_run, write_results

    if policy not in ("teacher", "llm", "endpoint"):
        raise typer.BadParameter("must be teacher, llm or endpoint", param_hint="--policy")
    if policy == "endpoint" and not (endpoint and model):
        raise typer.BadParameter("--policy endpoint needs --endpoint and --model")
    try:
        items = load_contracts(contracts)
    except ContractFileError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    cfg = RunConfig(
        workers=workers,
        step_cap=step_cap,
        screenshots=screenshots,
        top=TopSpec(kind="llm" if policy == "llm" else "rule"),
        middle=MiddleSpec(
            kind="endpoint" if policy == "endpoint" else "heuristic",
            endpoint=endpoint,
            model=model,
            grounded_schema=grounded_schema,
        ),
    )
    run_dir = out / "run"
    try:
        run_batch(items, run_dir, cfg, resources=resources_for(cfg, items), progress=not as_json)
    except (RunDirError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    results = {
        "policy": cfg.policy_name(),
        "contracts": str(contracts),
        "run": str(run_dir),
        "workers": workers,
        "step_cap": step_cap,
        **score_run(run_dir, items),
    }
    write_results(out, results)
    if as_json:
        print(json.dumps(results["summary"] | {"counterfactuals": results["counterfactuals"]}))
    else:
        typer.echo((out / "report.md").read_text().split("## Same-base")[0])


def register(bench_app: typer.Typer) -> None:
    bench_app.command("contracts")(bench_contracts)
