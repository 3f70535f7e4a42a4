"""`pathwise odobot run | demo`: the held-out study, OdoBot against the full-observation agent;
`pathwise bench odobot`: the same study timed stage by stage (OdoBot Table IV)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Annotated

import typer

from common.cli import Overwrite, Results, refuse_results
from odobot.cli import LimitOpt, MatcherOpt, OutOpt, config_for, counter_for


def run_cmd(out: OutOpt = Path("runs/odobot"), limit: LimitOpt = None,
            matcher: MatcherOpt = "auto") -> None:  # fmt: skip
    """Run the held-out tasks with OdoBot and with the full-observation baseline; report."""
    from evals.odobot.report import write_report
    from evals.odobot.study import run

    if not (out / "model" / "graph.json").is_file():
        typer.echo(f"error: {out / 'model' / 'graph.json'} missing; run `pathwise odobot build`",
                   err=True)  # fmt: skip
        raise typer.Exit(2)
    cfg = config_for(out, limit, matcher)
    run(out, cfg, counter_for(out))
    _print(write_report(out))


def _print(rep: dict) -> None:
    s = rep["summary"]
    typer.echo(
        f"success: OdoBot {s['odobot_success']:.1%}, baseline {s['baseline_success']:.1%}; "
        f"prompt tokens/task: OdoBot {s['odobot_prompt_tokens_per_task']:,.0f}, baseline "
        f"{s['baseline_prompt_tokens_per_task']:,.0f} (ratio {s['prompt_token_ratio']:.1%}); "
        f"amortized after {s['amortization_tasks']} tasks"
    )


def demo_cmd(out: OutOpt = Path("runs/odobot-demo"), limit: LimitOpt = None,
             matcher: MatcherOpt = "auto") -> None:  # fmt: skip
    """Everything: demonstrations, model, held-out runs both ways, report.md/report.json."""
    from evals.odobot.report import write_report
    from evals.odobot.study import run
    from odobot.pipeline import build, record

    t0 = time.perf_counter()
    cfg = config_for(out, limit, matcher)
    counter = counter_for(out)
    typer.echo(f"[1/3] demonstrations and model -> {out}")
    record(out, cfg)
    build(out, counter)
    typer.echo("[2/3] held-out tasks: OdoBot, then the full-observation baseline")
    run(out, cfg, counter)
    typer.echo("[3/3] report")
    rep = write_report(out, {"wall_s": round(time.perf_counter() - t0, 1),
                             "tokenizer": counter.name})  # fmt: skip
    _print(rep)
    typer.echo(f"report: {out / 'report.md'}")


def bench_cmd(
    out: OutOpt = Path("runs/bench-odobot"),
    limit: LimitOpt = None,
    matcher: MatcherOpt = "auto",
    fresh: Annotated[bool, typer.Option("--fresh", help="Discard OUT first.")] = False,
    results: Results = None,
    overwrite: Overwrite = False,
) -> None:
    """`pathwise odobot demo` with each stage timed: 60 demonstrations on one LMS seed, the
    model, 60 held-out instances on another seed with both arms; report beside the paper's."""
    from common.results import write_results
    from evals.odobot.report import markdown, write_report
    from evals.odobot.study import run
    from odobot.pipeline import build, failed_demos, record

    refuse_results(results, overwrite)
    if fresh and out.exists():
        shutil.rmtree(out)
    t0 = time.perf_counter()
    cfg = config_for(out, limit, matcher)
    counter = counter_for(out)
    t_rec = time.perf_counter()
    record(out, cfg)
    t_build = time.perf_counter()
    info = build(out, counter)
    t_run = time.perf_counter()
    run(out, cfg, counter)
    meta = {
        "wall_s": round(time.perf_counter() - t0, 1),
        "record_s": round(t_build - t_rec, 1),
        "build_s": info["build_s"],
        "run_s": round(time.perf_counter() - t_run, 1),
        "tokenizer": counter.name,
        "demonstrations_failed": failed_demos(out),
    }
    rep = write_report(out, meta)
    _print(rep)
    if results is not None:
        write_results(results, rep, markdown(rep, meta), overwrite=overwrite)


def register(odobot_app: typer.Typer) -> None:
    odobot_app.command("run")(run_cmd)
    odobot_app.command("demo")(demo_cmd)


def register_bench(bench_app: typer.Typer) -> None:
    bench_app.command("odobot")(bench_cmd)
