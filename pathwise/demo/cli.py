"""`pathwise demo`: the main job, resumable stage by stage; `pathwise bench demo`: its stage
timings and headline metrics as a benchmark result (benchmarks/results/demo.{json,md})."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from common.cli import Overwrite, Results, refuse_results


def demo(
    recipe: Annotated[
        str, typer.Option(help="Demo recipe name (pathwise/demo/recipes) or a YAML path.")
    ] = "smollm2-cpu",
    out: Annotated[
        Path,
        typer.Option(help="Output folder; rerunning resumes finished stages.", resolve_path=True),
    ] = Path("runs/demo"),
    final: Annotated[
        bool,
        typer.Option(
            "--final",
            help="Also measure the recipe's test_tasks, live against the teacher: once, at the "
            "end, after every choice was made on the development (unseen) tasks.",
        ),
    ] = False,
) -> None:
    """Teacher rollouts on MiniWoB++ -> SFT export -> student training -> vLLM -> offline and
    live evaluation -> report.md / report.json. Every stage is resumable."""
    from pathwise.demo.config import load_demo_config
    from pathwise.demo.pipeline import run_pipeline

    try:
        cfg = load_demo_config(recipe)
    except (FileNotFoundError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    report = run_pipeline(cfg, out, final=final)
    typer.echo(json.dumps(report.get("headline", {}), indent=2))


def bench_demo(
    run: Annotated[
        Path | None, typer.Option(help="A finished demo folder (holds report.json) to read.")
    ] = None,
    recipe: Annotated[str, typer.Option(help="Recipe of a fresh run (without --run).")] = (
        "smollm2-cpu"
    ),
    note: Annotated[str, typer.Option(help="A line on how the run was made (e.g. resumed).")] = "",
    results: Results = None,
    overwrite: Overwrite = False,
) -> None:
    """Stage timings of `pathwise demo`: a fresh run in a new temporary folder (about 16 min
    with the default recipe), or the report of a finished one."""
    import tempfile

    from common.results import write_results
    from pathwise.demo.config import load_demo_config
    from pathwise.demo.pipeline import run_pipeline

    refuse_results(results, overwrite)
    if run is None:
        run = Path(tempfile.mkdtemp(prefix="pathwise-demo-"))
        typer.echo(f"fresh demo run in {run}")
        try:
            cfg = load_demo_config(recipe)
        except (FileNotFoundError, ValueError) as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2) from None
        run_pipeline(cfg, run)
    report = json.loads((run / "report.json").read_text())
    doc = {
        "benchmark": "demo_stage_timings",
        "recipe": report["recipe"],
        "run": str(run),
        "stage_seconds": report["stage_seconds"],
        "total_seconds": report["total_seconds"],
        "headline": report.get("headline", {}),
        "note": note,
    }
    md = demo_markdown(doc)
    if results is not None:
        write_results(results, doc, md, overwrite=overwrite)
    typer.echo(md)


def demo_markdown(doc: dict[str, Any]) -> str:
    def cell(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else str(v)

    return "\n".join(
        [
            f"# Demo stage timings ({doc['recipe']})",
            "",
            f"Total {doc['total_seconds']:.0f} s.",
            *([doc["note"]] if doc["note"] else []),
            "",
            "| stage | seconds |",
            "| --- | ---: |",
            *[f"| {k} | {v} |" for k, v in doc["stage_seconds"].items()],
            "",
            "Headline metrics of the same run:",
            "",
            "| metric | value |",
            "| --- | ---: |",
            *[f"| {k} | {cell(v)} |" for k, v in doc["headline"].items()],
        ]
    )


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command("demo")(demo)
    bench_app.command("demo")(bench_demo)
