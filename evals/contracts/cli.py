"""`pathwise bench contracts`: contract-gated success of a policy on contract-site contracts;
`pathwise bench contracts-student`: a served student's live run beside the teacher's."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from agent_runtime.runner.config import MiddleSpec
from agent_runtime.runner.options import middle_options
from common.cli import AsJson, Overwrite, Results, StepCap, fail, refuse_results


@middle_options
def bench_contracts(
    contracts: Annotated[Path, typer.Option(help="Contract file (e.g. OUT/contracts/test.jsonl).")],
    out: Annotated[
        Path, typer.Option(help="Folder: run/ (resumable traces), results.json, report.md.")
    ],
    middle: MiddleSpec,
    policy: Annotated[
        str,
        typer.Option(help="teacher (contract top + heuristic middle), llm (LLM top) or endpoint."),
    ] = "teacher",
    workers: Annotated[
        int, typer.Option(min=1, help="Parallel browsers (one rollout per site).")
    ] = 2,
    step_cap: StepCap = 20,
    screenshots: Annotated[bool, typer.Option(help="Write labeled PNGs with the traces.")] = False,
    as_json: AsJson = False,
    results: Results = None,
    overwrite: Overwrite = False,
) -> None:
    """Run the contracts (rerun the same command to resume), then score CGS and every gate under
    the All / Unblocked / Clean denominators, Table 14's counterfactual statistics per base task,
    and time per rollout. Writes OUT/results.json and OUT/report.md (and --results)."""
    from agent_runtime.runner.batch import RunDirError, run_batch
    from agent_runtime.runner.config import RunConfig, TopSpec
    from agent_runtime.runner.factories import ready, resources_for
    from contracts.intent import ContractFileError, load_contracts
    from evals.contracts.bench import score_run, write_results
    from serving.client import EndpointAuthError

    if policy not in ("teacher", "llm", "endpoint"):
        raise typer.BadParameter("must be teacher, llm or endpoint", param_hint="--policy")
    if policy == "endpoint" and middle.kind != "endpoint":
        raise typer.BadParameter("--policy endpoint needs --endpoint and --model")
    try:
        items = load_contracts(contracts)
    except ContractFileError as e:
        fail(e)
    refuse_results(results, overwrite)
    run_dir = out / "run"
    t0 = time.perf_counter()
    try:
        cfg = ready(
            RunConfig(
                workers=workers,
                step_cap=step_cap,
                screenshots=screenshots,
                top=TopSpec(kind="llm" if policy == "llm" else "rule"),
                middle=middle if policy == "endpoint" else MiddleSpec(),
            )
        )
        run_batch(items, run_dir, cfg, resources=resources_for(cfg, items), progress=not as_json)
    except (RunDirError, EndpointAuthError, ValueError) as e:
        fail(e)
    scored = {
        "policy": cfg.policy_name(),
        "contracts": str(contracts),
        "run": str(run_dir),
        "workers": workers,
        "step_cap": step_cap,
        # A resumed run only times what this call ran; time per rollout is in the summary.
        "wall_s_this_call": round(time.perf_counter() - t0, 1),
        **score_run(run_dir, items),
    }
    write_results(out, scored)
    if results is not None:
        from common.results import write_results as write_benchmark
        from evals.contracts.report import render

        write_benchmark(results, scored, render(scored), overwrite=overwrite)
    if as_json:
        print(json.dumps(scored["summary"] | {"counterfactuals": scored["counterfactuals"]}))
    else:
        typer.echo((out / "report.md").read_text().split("## Same-base")[0])


def bench_contracts_student(
    live: Annotated[Path, typer.Option(help="The student's `pathwise eval live` --out folder.")],
    teacher: Annotated[Path, typer.Option(help="The teacher's run folder (OUT/run).")],
    contracts: Annotated[
        Path, typer.Option(help="The contracts both runs ran (default: the held-out split).")
    ] = Path("runs/contract-sites/contracts/test.jsonl"),
    workers: Annotated[int, typer.Option(help="Parallel browsers the student ran with.")] = 2,
    note: Annotated[str, typer.Option(help="A sentence on how the student's run was made.")] = "",
    results: Results = None,
    overwrite: Overwrite = False,
) -> None:
    """Score the teacher's and the student's runs of the same contracts with the same gates,
    side by side, with the live report's paired statistics."""
    from common.results import write_results
    from contracts.intent import ContractFileError
    from evals.contracts.student import student_report

    refuse_results(results, overwrite)
    try:
        doc, md = student_report(live, teacher, contracts, workers, note)
    except (FileNotFoundError, ContractFileError) as e:
        fail(e)
    if results is not None:
        write_results(results, doc, md, overwrite=overwrite)
    typer.echo(md)


def register(bench_app: typer.Typer) -> None:
    bench_app.command("contracts")(bench_contracts)
    bench_app.command("contracts-student")(bench_contracts_student)
