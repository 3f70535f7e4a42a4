"""`pathwise catalog eval`: CatalogBrowse's documents scored against a snapshot's gold; and
`pathwise bench catalog`: KnowPlan Tables 1, 2 and 5 over synthetic schools and St. Olaf."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import typer

from common.cli import Overwrite, Results, fail, refuse_results

# Defaults relative to the repository root, where the benchmarks are run from.
ANNOTATED = Path("tests/catalogbrowse/fixtures/stolaf_prereqs.jsonl")
STOLAF_TERMS = Path("../shared/data/catalogs/stolaf-courses")


def evaluate(
    gold: Path = typer.Option(..., help="gold directory (OUT/gold of a snapshot)"),
    docs: Path = typer.Option(..., help="a run directory with the three documents"),
    snapshot: Path = typer.Option(None, help="the snapshot (default: GOLD/../site)"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object on stdout"),
) -> None:
    """Inventory recall, typed P/R/F1, normalized AST equivalence, masked recovery."""
    from evals.catalog.metrics import score
    from planner.documents import DocumentError

    try:
        s = score(gold, docs, snapshot or gold.parent / "site")
    except (DocumentError, FileNotFoundError) as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps(s))
        return
    for k, v in s.items():
        typer.echo(f"{k:24s} {v:.4f}" if isinstance(v, float) else f"{k:24s} {v}")


def bench_catalog(
    schools: int = typer.Option(20, help="seeds per family"),
    families: str = typer.Option("courseleaf,acalog,api,pdf,custom", help="comma-separated"),
    work: Path = typer.Option(Path("runs/bench_catalog"), help="snapshots, runs, rows.jsonl"),
    stolaf_src: Path = typer.Option(Path("../shared/data/catalogs"), help="St. Olaf sources"),
    stolaf_docs: Path = typer.Option(Path("data/catalogs/stolaf"), help="St. Olaf documents"),
    no_stolaf: bool = typer.Option(False, "--no-stolaf", help="synthetic schools only"),
    planning: int = typer.Option(2, help="profiles per plain synthetic school"),
    annotated: Path = typer.Option(ANNOTATED, help="hand-annotated real St. Olaf strings"),
    clause_model_dir: Path = typer.Option(None, help="clause model checkpoint"),
    clause_adapter: Path = typer.Option(None, help="its LoRA adapter"),
    results: Results = None,
    overwrite: Overwrite = False,
) -> None:
    """CatalogBrowse vs budgeted BFS vs platform-exhaustive, plain and masked tracks, every
    school scored against gold; resumable (rows in WORK/rows.jsonl)."""
    from common.results import write_results
    from evals.catalog.bench import FAMILIES, run_catalog

    names = [f.strip() for f in families.split(",") if f.strip()]
    unknown = sorted(set(names) - set(FAMILIES))
    if unknown:
        raise typer.BadParameter(
            f"unknown famil(ies): {', '.join(unknown)}", param_hint="--families"
        )
    refuse_results(results, overwrite)
    doc, md = run_catalog(
        work,
        schools,
        names,
        None if no_stolaf else (stolaf_src, stolaf_docs),
        annotated,
        planning,
        clause_model_dir,
        clause_adapter,
    )
    if results is not None:
        write_results(results, doc, md, overwrite=overwrite)
    typer.echo(md)


def bench_clause_model(
    base: Path = typer.Option(..., help="pretrained base (transformers directory)"),
    recipe: Path = typer.Option(..., help="clause-to-AST recipe for that base"),
    steps: int = typer.Option(300, help="optimizer steps"),
    max_length: int = typer.Option(None, help="override the recipe's limit"),
    precision: str = typer.Option(None, help="override the recipe's: bf16 or fp32"),
    adapter: Path = typer.Option(None, help="score this adapter, no training"),
    n: int = typer.Option(4000, help="synthetic clause records"),
    k: int = typer.Option(100, help="spans scored per set"),
    real: list[Path] = typer.Option(
        None, help=f"real St. Olaf term files (default {STOLAF_TERMS}/terms-*.json; repeatable)"
    ),
    annotated: Path = typer.Option(ANNOTATED, help="hand-annotated real strings (held out)"),
    work: Path = typer.Option(Path("runs/clause_model"), help="data/ and adapter/ (resumable)"),
    results: Results = None,
    overwrite: Overwrite = False,
) -> None:
    """Train the clause-to-AST fallback once and score it on three sets it never saw:
    held-out generator ASTs, hand-annotated St. Olaf strings, the grammar's long tail."""
    from common.results import write_results
    from evals.catalog.clause_model import run_clause_model

    if precision not in (None, "bf16", "fp32"):
        raise typer.BadParameter("must be bf16 or fp32", param_hint="--precision")
    refuse_results(results, overwrite)
    spans = real if real else sorted(STOLAF_TERMS.glob("terms-*.json"))
    try:
        doc, md = run_clause_model(
            work, base, recipe, steps, annotated, spans, n, k, adapter, max_length, precision
        )
    except subprocess.CalledProcessError as exc:  # training said why on stderr above
        fail(f"training failed ({shlex.join(exc.cmd)}: exit {exc.returncode})")
    if results is not None:
        write_results(results, doc, md, overwrite=overwrite)
    typer.echo(md)


def register(catalog_app: typer.Typer) -> None:
    catalog_app.command("eval")(evaluate)


def register_bench(bench_app: typer.Typer) -> None:
    bench_app.command("catalog")(bench_catalog)
    bench_app.command("clause-model")(bench_clause_model)
