"""`pathwise odobot demo | build | run | inspect`: OdoBot on the local LMS, step by step."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

odobot_app = typer.Typer(
    help="OdoBot: build an application model from LMS demonstrations, run tasks with it.",
    no_args_is_help=True,
)
OutOpt = Annotated[Path, typer.Option(help="Run folder (resumable: finished work is kept).")]
LimitOpt = Annotated[
    int | None, typer.Option(help="Only the first N of the 60 task templates (quick runs).")
]
MatcherOpt = Annotated[
    str,
    typer.Option(help="Target matcher: auto (= hybrid: embedding + char TF-IDF), hybrid, "
                 "embedding or lexical."),
]  # fmt: skip


def _config(out: Path, limit: int | None, matcher: str):
    from agent_runtime.appmodel.target import MATCHERS
    from pathwise.odobot.pipeline import OdoConfig, load_config

    if matcher not in MATCHERS:
        typer.echo(f"error: --matcher {matcher!r}: expected one of {', '.join(MATCHERS)}", err=True)
        raise typer.Exit(2)
    cfg = load_config(out, OdoConfig(limit=limit, matcher=matcher))  # type: ignore[arg-type]
    if (limit is not None and cfg.limit != limit) or cfg.matcher != matcher:
        typer.echo(f"error: {out}/config.json was made with limit={cfg.limit}, "
                   f"matcher={cfg.matcher}; use another --out", err=True)  # fmt: skip
        raise typer.Exit(2)
    return cfg


def _counter(out: Path):
    from pathwise.odobot.tokens import TokenizerUnavailable, load_counter

    try:
        return load_counter(out / "tokenizer")
    except TokenizerUnavailable as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None


@odobot_app.command("build")
def build_cmd(out: OutOpt = Path("runs/odobot"), limit: LimitOpt = None,
              matcher: MatcherOpt = "auto") -> None:  # fmt: skip
    """Record the demonstrations (scripted user, real executor) and build the graph model."""
    from pathwise.odobot.pipeline import build, record

    cfg = _config(out, limit, matcher)
    record(out, cfg)
    info = build(out, _counter(out))
    st = info["stats"]
    typer.echo(
        f"model: {st['vertices']} vertices, {st['edges']} edges, {st['dynamic_vertices']} "
        f"dynamicXpath clicks from {st['trajectories']} demonstrations; construction cost "
        f"{info['construction_tokens']:,} description tokens -> {out / 'model' / 'graph.json'}"
    )


@odobot_app.command("run")
def run_cmd(out: OutOpt = Path("runs/odobot"), limit: LimitOpt = None,
            matcher: MatcherOpt = "auto") -> None:  # fmt: skip
    """Run the held-out tasks with OdoBot and with the full-observation baseline; report."""
    from pathwise.odobot.pipeline import run
    from pathwise.odobot.report import write_report

    if not (out / "model" / "graph.json").is_file():
        typer.echo(f"error: {out / 'model' / 'graph.json'} missing; run `pathwise odobot build`",
                   err=True)  # fmt: skip
        raise typer.Exit(2)
    cfg = _config(out, limit, matcher)
    run(out, cfg, _counter(out))
    _print(write_report(out))


def _print(rep: dict) -> None:
    s = rep["summary"]
    typer.echo(
        f"success: OdoBot {s['odobot_success']:.1%}, baseline {s['baseline_success']:.1%}; "
        f"prompt tokens/task: OdoBot {s['odobot_prompt_tokens_per_task']:,.0f}, baseline "
        f"{s['baseline_prompt_tokens_per_task']:,.0f} (ratio {s['prompt_token_ratio']:.1%}); "
        f"amortized after {s['amortization_tasks']} tasks"
    )


@odobot_app.command("demo")
def demo_cmd(out: OutOpt = Path("runs/odobot-demo"), limit: LimitOpt = None,
             matcher: MatcherOpt = "auto") -> None:  # fmt: skip
    """Everything: demonstrations, model, held-out runs both ways, report.md/report.json."""
    from pathwise.odobot.pipeline import build, record, run
    from pathwise.odobot.report import write_report

    t0 = time.perf_counter()
    cfg = _config(out, limit, matcher)
    counter = _counter(out)
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


@odobot_app.command("inspect")
def inspect_cmd(
    out: OutOpt = Path("runs/odobot"),
    png: Annotated[
        Path | None, typer.Option(help="Picture file (default OUT/model/graph.png).")
    ] = None,
    limit: Annotated[int, typer.Option(help="Vertices to list (most instances first).")] = 30,
) -> None:
    """The graph model as a picture, and its vertices with their descriptions."""
    from agent_runtime.appmodel.draw import describe_graph, draw_graph
    from agent_runtime.appmodel.graph import load_graph

    try:
        g = load_graph(out / "model" / "graph.json")
    except (OSError, ValueError) as e:
        typer.echo(f"error: {e}; run `pathwise odobot build --out {out}` first", err=True)
        raise typer.Exit(2) from None
    path = draw_graph(g, png or out / "model" / "graph.png")
    lines = describe_graph(g).split("\n")
    typer.echo("\n".join(lines[: 3 * limit]))
    typer.echo(f"... {g.number_of_nodes()} vertices; picture: {path}")
    vocab = {t: v for t, v in g.graph.get("vocabularies", {}).items() if v}
    typer.echo(f"vocabularies (constant select options, evidence for a trajectory): {len(vocab)}")
    for tid, words in sorted(vocab.items()):
        typer.echo(f"  {tid}: {', '.join(words)}")


def register(app: typer.Typer) -> None:
    app.add_typer(odobot_app, name="odobot")
