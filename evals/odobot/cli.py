"""`pathwise odobot run | demo`: the held-out study, OdoBot against the full-observation agent,
each answered by its trained student or by the oracle upper bound; `pathwise bench odobot`: the
study timed arm by arm (OdoBot Table IV)."""

from __future__ import annotations

import shutil
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer

from common.cli import ApiKey, Endpoint, Overwrite, Results, fail, refuse_results
from odobot.cli import LimitOpt, MatcherOpt, OutOpt, config_for, counter_for

AnswererOpt = Annotated[
    str,
    typer.Option(
        help="Who answers the model calls: student (the trained students, served by vLLM from "
        "OUT/students or at --endpoint) or oracle (the task's parameters: the upper bound)."
    ),
]
OdobotModel = Annotated[
    str, typer.Option(help="OdoBot's student's name at --endpoint.")
]  # fmt: skip
BaselineModel = Annotated[
    str, typer.Option(help="The full-observation baseline's student's name at --endpoint.")
]


def _students(
    out: Path, endpoint: str | None, api_key: str | None, odobot_model: str, baseline_model: str
) -> AbstractContextManager[Any]:
    """The students at --endpoint, else both served from OUT/students by vLLM on 127.0.0.1."""
    from evals.odobot.serve import served_students
    from evals.odobot.study import Endpoint as StudentEndpoint
    from evals.odobot.study import Students

    if endpoint:
        return nullcontext(
            Students(
                odobot=StudentEndpoint(url=endpoint, model=odobot_model),
                baseline=StudentEndpoint(url=endpoint, model=baseline_model),
                api_key=api_key,
            )
        )
    return served_students(out, out / "logs")


def _need_model(out: Path) -> None:
    if not (out / "model" / "graph.json").is_file():
        fail(f"{out / 'model' / 'graph.json'} missing; run `pathwise odobot build --out {out}`")


def run_cmd(
    out: OutOpt = Path("runs/odobot"),
    limit: LimitOpt = None,
    matcher: MatcherOpt = "auto",
    answerer: AnswererOpt = "student",
    endpoint: Endpoint = None,
    api_key: ApiKey = None,
    odobot_model: OdobotModel = "odobot-student",
    baseline_model: BaselineModel = "baseline-student",
) -> None:
    """Run the held-out tasks with OdoBot and with the full-observation baseline; report."""
    from evals.odobot.report import write_report
    from evals.odobot.study import run

    if answerer not in ("student", "oracle"):
        fail(f"--answerer {answerer!r}: expected student or oracle")
    _need_model(out)
    cfg = config_for(out, limit, matcher)
    counter = counter_for(out)
    try:
        if answerer == "oracle":
            run(out, cfg, counter, ("oracle",))
        else:
            with _students(out, endpoint, api_key, odobot_model, baseline_model) as students:
                run(out, cfg, counter, ("student",), students)
    except (FileNotFoundError, ValueError) as e:
        fail(e)
    _print(write_report(out, {"tokenizer": counter.name}))


def _print(rep: dict[str, Any]) -> None:
    for arm, a in rep["arms"].items():
        typer.echo(
            f"{arm}: success {a['success']:.1%}, prompt tokens/task "
            f"{a['prompt_tokens_per_task']:,.0f}, model calls/task {a['calls_per_task']:.1f}"
        )
    for who, c in rep["comparisons"].items():
        typer.echo(
            f"{who}s: OdoBot's prompt tokens {c['prompt_token_ratio']:.1%} of the baseline's; "
            f"McNemar p {c['mcnemar_exact_p']:.3g}; amortized after {c['amortization_tasks']} tasks"
        )


def demo_cmd(out: OutOpt = Path("runs/odobot-demo"), limit: LimitOpt = None,
             matcher: MatcherOpt = "auto") -> None:  # fmt: skip
    """Demonstrations, model, held-out runs of both agents with the oracle, report (no training:
    the students come from `pathwise odobot train`, then `pathwise odobot run`)."""
    from evals.odobot.report import write_report
    from evals.odobot.study import run
    from odobot.pipeline import build, record

    t0 = time.perf_counter()
    cfg = config_for(out, limit, matcher)
    counter = counter_for(out)
    typer.echo(f"[1/3] demonstrations and model -> {out}")
    record(out, cfg)
    build(out, counter)
    typer.echo("[2/3] held-out tasks: OdoBot, then the full-observation baseline (oracle)")
    run(out, cfg, counter, ("oracle",))
    typer.echo("[3/3] report")
    rep = write_report(out, {"wall_s": round(time.perf_counter() - t0, 1),
                             "tokenizer": counter.name})  # fmt: skip
    _print(rep)
    typer.echo(f"report: {out / 'report.md'}")


def bench_cmd(
    out: OutOpt = Path("runs/odobot"),
    limit: LimitOpt = None,
    matcher: MatcherOpt = "auto",
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh", help="Discard OUT's held-out runs first (not the model nor the students)."
        ),
    ] = False,
    results: Results = None,
    overwrite: Overwrite = False,
    dtype: Annotated[
        str,
        typer.Option(
            help="The students' serving dtype: auto (bfloat16 only where the CPU has bf16 "
            "units), float32 (what an AVX2-only CPU runs) or bfloat16."
        ),
    ] = "auto",
    note: Annotated[
        str | None,
        typer.Option(help="One line for the results' run line, e.g. how the CPU was shared."),
    ] = None,
) -> None:
    """The study on the held-out tasks, timed: both agents with the oracle, then both trained
    students served by vLLM; the report beside the paper's. The students come from
    `pathwise odobot train --out OUT` (its stage times are reported too)."""
    from common.results import write_results
    from evals.odobot.report import markdown, write_report
    from evals.odobot.serve import served_students
    from evals.odobot.study import run
    from serving.vllm_args import resolve_dtype

    if dtype not in ("auto", "float32", "bfloat16"):
        fail(f"--dtype {dtype!r}: expected auto, float32 or bfloat16")
    refuse_results(results, overwrite)
    _need_model(out)
    cfg = config_for(out, limit, matcher)
    counter = counter_for(out)
    if fresh:
        shutil.rmtree(out / "runs", ignore_errors=True)
    t0 = time.perf_counter()
    run(out, cfg, counter, ("oracle",))
    t_serve = time.perf_counter()
    try:
        with served_students(out, out / "logs", dtype=dtype) as students:
            t_run = time.perf_counter()
            run(out, cfg, counter, ("student",), students)
    except FileNotFoundError as e:
        fail(e)
    t_end = time.perf_counter()
    meta = {
        "wall_s": round(t_end - t0, 1),
        "oracle_arms_s": round(t_serve - t0, 1),
        "serve_startup_s": round(t_run - t_serve, 1),
        "student_arms_s": round(t_end - t_run, 1),
        "tokenizer": counter.name,
        "serving_dtype": resolve_dtype(dtype),
    }
    if note:
        meta["note"] = note
    rep = write_report(out, meta)
    _print(rep)
    if results is not None:
        write_results(results, rep, markdown(rep, meta), overwrite=overwrite)


def register(odobot_app: typer.Typer) -> None:
    odobot_app.command("run")(run_cmd)
    odobot_app.command("demo")(demo_cmd)


def register_bench(bench_app: typer.Typer) -> None:
    bench_app.command("odobot")(bench_cmd)
