"""`pathwise eval offline` and `pathwise eval live` (heavy imports stay inside the commands)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_runtime.runner.config import MiddleSpec
from agent_runtime.runner.options import middle_options
from common.cli import Overwrite, Results, StepCap, Workers, fail, refuse_results

eval_app = typer.Typer(
    help="Evaluate a middle layer: offline action/target match, live insertion.",
    no_args_is_help=True,
)


@eval_app.command("offline")
@middle_options
def offline(
    dataset: Annotated[Path, typer.Option(help="SFT DatasetDict folder (save_to_disk).")],
    out: Annotated[Path, typer.Option(help="New report folder (never overwritten).")],
    middle: MiddleSpec,
    split: Annotated[str, typer.Option(help="Split to evaluate.")] = "eval",
    local: Annotated[
        Path | None, typer.Option(help="Evaluate in-process with the embedded backend.")
    ] = None,
    adapter: Annotated[Path | None, typer.Option(help="LoRA adapter folder for --local.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight.")] = 8,
    limit: Annotated[int | None, typer.Option(min=1, help="Evaluate the first N records.")] = None,
    max_tokens: Annotated[int, typer.Option(min=1, help="Completion token cap.")] = 256,
) -> None:
    """Held-out post-guard prediction: AST validity, action match, target match (Appendix E).

    A vision student gets each record's screenshot (decided from the model's config, else the
    dataset's manifest; --vision/--text-only decides instead)."""
    from common.outputs import OutputExistsError
    from evals.offline.report import pct
    from evals.offline.run import OfflineConfig, run_offline
    from serving.client import EndpointAuthError

    if (local is None) == (middle.endpoint is None):
        raise typer.BadParameter("give exactly one of --endpoint (with --model) or --local")
    if adapter is not None and local is None:
        raise typer.BadParameter("--adapter goes with --local (a served adapter is a --model)")
    cfg = OfflineConfig(
        dataset=dataset,
        out=out,
        split=split,
        middle=middle,
        local=local,
        adapter=adapter,
        concurrency=concurrency,
        limit=limit,
        max_tokens=max_tokens,
    )
    try:
        res = run_offline(cfg)
    except (OutputExistsError, EndpointAuthError, OSError, KeyError, ValueError, RuntimeError) as e:
        fail(e)
    m = res["metrics"]
    typer.echo(
        f"n={m['n']}  ast_validity={pct(m['ast_validity'])}  action_match="
        f"{pct(m['action_match'])}  target_match={pct(m['target_match'])}  -> {out}/report.md"
    )
    if res["request_errors"]:
        typer.echo(f"warning: {res['request_errors']} requests failed (not scored)", err=True)
        raise typer.Exit(1)


@eval_app.command("live")
@middle_options
def live(
    contracts: Annotated[Path, typer.Option(help="Contract file (JSONL) to run.")],
    reference: Annotated[
        Path, typer.Option(help="Reference run folder on the same tasks and seeds (e.g. teacher).")
    ],
    out: Annotated[Path, typer.Option(help="Report folder; the candidate run goes to OUT/run.")],
    middle: MiddleSpec,
    policy: Annotated[
        str,
        typer.Option("--middle", help="endpoint (a served middle) or heuristic (the teacher)."),
    ] = "endpoint",
    workers: Workers = 1,
    step_cap: StepCap = 20,
    timeout: Annotated[float, typer.Option(help="Seconds per rollout.")] = 900.0,
    retries: Annotated[int, typer.Option(min=0, help="Retries after a runtime failure.")] = 1,
    candidate: Annotated[
        Path | None,
        typer.Option(help="Score this finished run folder instead of running (no browser)."),
    ] = None,
    n_boot: Annotated[int, typer.Option(min=100, help="Bootstrap draws.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Scheduling and bootstrap seed.")] = 20260612,
) -> None:
    """Insert a middle behind the fixed rule top, guards and executor; pair with a reference run.

    A vision student gets each step's screenshot (decided from the served model's config;
    --vision/--text-only decides instead)."""
    from agent_runtime.runner.batch import RunDirError
    from common.outputs import OutputExistsError
    from contracts.intent import ContractFileError
    from evals.live.pairing import PairingError
    from evals.live.report import pct
    from evals.live.run import LiveConfig, run_live
    from serving.client import EndpointAuthError

    if policy not in ("endpoint", "heuristic"):
        raise typer.BadParameter("--middle must be endpoint or heuristic")
    if policy == "endpoint" and candidate is None and middle.kind != "endpoint":
        raise typer.BadParameter("--middle endpoint needs --endpoint and --model")
    cfg = LiveConfig(
        contracts=contracts,
        reference=reference,
        out=out,
        middle=middle if policy == "endpoint" else MiddleSpec(),
        workers=workers,
        step_cap=step_cap,
        timeout_s=timeout,
        retries=retries,
        candidate=candidate,
        n_boot=n_boot,
        seed=seed,
    )
    try:
        res = run_live(cfg)
    except (
        OutputExistsError,
        ContractFileError,
        PairingError,
        RunDirError,
        EndpointAuthError,
        FileNotFoundError,
        ValueError,
    ) as e:
        fail(e)
    c, r = res["candidate"], res["reference"]
    d = res["paired"]["all"]
    typer.echo(
        f"paired={res['paired_contracts']}  candidate={pct(c['all']['rate'])}  "
        f"reference={pct(r['all']['rate'])}  McNemar p={d['mcnemar_p']:.4g}  -> {out}/report.md"
    )


def bench_serving(
    prompts: Annotated[int, typer.Option(help="Prompts per backend.")] = 64,
    concurrency: Annotated[int, typer.Option(help="Requests in flight against vLLM.")] = 8,
    max_tokens: Annotated[int, typer.Option(help="Completion budget per prompt.")] = 48,
    threads: Annotated[int, typer.Option(help="torch threads, embedded backend.")] = 1,
    base: Annotated[
        Path | None, typer.Option(help="Trained base (default: a tiny random Qwen3).")
    ] = None,
    adapter: Annotated[Path | None, typer.Option(help="Its LoRA adapter.")] = None,
    workdir: Annotated[Path, typer.Option(help="Scratch dir for the models.")] = Path(
        "runs/bench_serving"
    ),
    skip_vllm: Annotated[bool, typer.Option("--skip-vllm", help="Embedded backend only.")] = False,
    results: Results = None,
    overwrite: Overwrite = False,
) -> None:
    """Offline-eval throughput through vLLM on CPU vs the embedded backend (same prompts)."""
    from common.results import write_results
    from evals.offline.throughput import run_serving

    refuse_results(results, overwrite)
    doc, md = run_serving(
        workdir, prompts, concurrency, max_tokens, threads, base, adapter, skip_vllm
    )
    if results is not None:
        write_results(results, doc, md, overwrite=overwrite)
    typer.echo(md)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    from evals.audit.cli import audit_app
    from evals.contracts import cli as contracts_cli
    from evals.viewer.cli import view

    app.add_typer(eval_app, name="eval")
    app.command("view")(view)
    app.add_typer(audit_app, name="audit")
    contracts_cli.register(bench_app)  # pathwise bench contracts, contracts-student
    bench_app.command("serving")(bench_serving)
