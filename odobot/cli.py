"""`pathwise odobot build | inspect`: OdoBot's application model on the local LMS (`run` and
`demo`, the study against the baseline, are mounted by evals/odobot/cli.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

odobot_app = typer.Typer(
    help="OdoBot: build an application model from LMS demonstrations, run tasks with it.",
    no_args_is_help=True,
)
# resolve_path: the caller's folder, whatever directory a stage's subprocess runs from.
OutOpt = Annotated[
    Path, typer.Option(help="Run folder (resumable: finished work is kept).", resolve_path=True)
]
LimitOpt = Annotated[
    int | None, typer.Option(help="Only the first N of the 60 task templates (quick runs).")
]
MatcherOpt = Annotated[
    str,
    typer.Option(help="Target matcher: auto (= hybrid: embedding + char TF-IDF), hybrid, "
                 "embedding or lexical."),
]  # fmt: skip


def config_for(out: Path, limit: int | None, matcher: str):
    from odobot.pipeline import OdoConfig, load_config
    from odobot.target import MATCHERS

    if matcher not in MATCHERS:
        typer.echo(f"error: --matcher {matcher!r}: expected one of {', '.join(MATCHERS)}", err=True)
        raise typer.Exit(2)
    cfg = load_config(out, OdoConfig(limit=limit, matcher=matcher))  # type: ignore[arg-type]
    if (limit is not None and cfg.limit != limit) or cfg.matcher != matcher:
        typer.echo(f"error: {out}/config.json was made with limit={cfg.limit}, "
                   f"matcher={cfg.matcher}; use another --out", err=True)  # fmt: skip
        raise typer.Exit(2)
    return cfg


def counter_for(out: Path):
    from odobot.tokens import TokenizerUnavailable, load_counter

    try:
        return load_counter(out / "tokenizer")
    except TokenizerUnavailable as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None


@odobot_app.command("build")
def build_cmd(out: OutOpt = Path("runs/odobot"), limit: LimitOpt = None,
              matcher: MatcherOpt = "auto") -> None:  # fmt: skip
    """Record the demonstrations (scripted user, real executor) and build the graph model."""
    from odobot.pipeline import build, record

    cfg = config_for(out, limit, matcher)
    record(out, cfg)
    info = build(out, counter_for(out))
    st = info["stats"]
    typer.echo(
        f"model: {st['vertices']} vertices, {st['edges']} edges, {st['dynamic_vertices']} "
        f"dynamicXpath clicks from {st['trajectories']} demonstrations; construction cost "
        f"{info['construction_tokens']:,} description tokens -> {out / 'model' / 'graph.json'}"
    )


@odobot_app.command("inspect")
def inspect_cmd(
    out: OutOpt = Path("runs/odobot"),
    png: Annotated[
        Path | None, typer.Option(help="Picture file (default OUT/model/graph.png).")
    ] = None,
    limit: Annotated[int, typer.Option(help="Vertices to list (most instances first).")] = 30,
) -> None:
    """The graph model as a picture, and its vertices with their descriptions."""
    from odobot.draw import describe_graph, draw_graph
    from odobot.graph import load_graph

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


def register(app: typer.Typer) -> typer.Typer:
    app.add_typer(odobot_app, name="odobot")
    return odobot_app
