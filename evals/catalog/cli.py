"""`pathwise catalog eval`: CatalogBrowse's documents scored against a snapshot's gold;
`pathwise bench catalog`: KnowPlan Tables 1, 2 and 5 over synthetic schools and St. Olaf; and
`pathwise bench clause-model`: the trained clause model on prose it never saw."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from common.cli import ApiKey, Endpoint, Overwrite, Results, fail, refuse_results

# Defaults relative to the repository root, where the benchmarks are run from.
DEVSET = Path("data/catalogs/stolaf-prereqs/devset.jsonl")
SUBJECTS = Path("data/catalogs/stolaf-prereqs/subjects.json")


def _model(
    model: bool, model_dir: Path | None, endpoint: str | None, served: str | None,
    api_key: str | None, subjects: dict | None,
):  # fmt: skip
    """The clause model to score (None: grammar only) and the name it is reported under."""
    from catalogbrowse.backend import clause_model
    from catalogbrowse.clause_card import default_model_dir
    from serving.client import EndpointAuthError

    if not (model or model_dir or endpoint):
        return None, ""
    default = default_model_dir()
    try:
        cm = clause_model(endpoint, served, model_dir, None, api_key, None, subjects, default)
    except (ValueError, OSError, EndpointAuthError) as exc:
        fail(str(exc))
    where = endpoint or str(model_dir or default)
    return cm, f"{where} (layout {cm.layout})"


def _subjects(path: Path | None) -> dict | None:
    if path is None:
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        fail(f"--subjects {path}: {exc}")


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
    devset: Path = typer.Option(DEVSET, help="hand-labelled real St. Olaf strings"),
    subjects: Path = typer.Option(SUBJECTS, help="St. Olaf department names to codes"),
    model: bool = typer.Option(
        False, "--model", help="also run CatalogBrowse with the clause model (the ablation)"
    ),
    clause_model_dir: Path = typer.Option(None, help="clause model (default: the trained one)"),
    endpoint: Endpoint = None,
    served_name: str = typer.Option(None, help="model name at --endpoint"),
    api_key: ApiKey = None,
    results: Results = None,
    overwrite: Overwrite = False,
) -> None:
    """CatalogBrowse vs budgeted BFS vs platform-exhaustive, plain and masked tracks, every
    school scored against gold; with --model, CatalogBrowse again with the clause model (KnowPlan
    Table 5's "- model fallback" row). Resumable (rows in WORK/rows.jsonl)."""
    from common.results import write_results
    from evals.catalog.bench import FAMILIES, run_catalog

    names = [f.strip() for f in families.split(",") if f.strip()]
    unknown = sorted(set(names) - set(FAMILIES))
    if unknown:
        raise typer.BadParameter(
            f"unknown famil(ies): {', '.join(unknown)}", param_hint="--families"
        )
    refuse_results(results, overwrite)
    table = _subjects(subjects)
    cm, name = _model(model, clause_model_dir, endpoint, served_name, api_key, table)
    doc, md = run_catalog(
        work,
        schools,
        names,
        None if no_stolaf else (stolaf_src, stolaf_docs),
        devset,
        planning,
        cm,
        name,
        table,
    )
    if results is not None:
        write_results(results, doc, md, overwrite=overwrite)
    typer.echo(md)


def bench_clause_model(
    model_dir: Path = typer.Option(
        None, help="the trained model (default: runs/clause-model/model)"
    ),
    endpoint: Endpoint = None,
    served_name: str = typer.Option(None, help="model name at --endpoint"),
    api_key: ApiKey = None,
    data: Path = typer.Option(
        None, help="held-out families (an `export clauses` folder; default: the model card's)"
    ),
    k: int = typer.Option(300, help="held-out records scored"),
    devset: Path = typer.Option(DEVSET, help="hand-labelled real St. Olaf strings"),
    subjects: Path = typer.Option(SUBJECTS, help="St. Olaf department names to codes"),
    results: Results = None,
    overwrite: Overwrite = False,
) -> None:
    """The trained clause model on prose it never saw: the generator's held-out families and
    the hand-labelled St. Olaf strings (grammar only, grammar + model, model alone)."""
    from tqdm import tqdm

    from catalogbrowse.clause_card import default_model_dir, read_card
    from common.results import write_results
    from evals.catalog.clause_model import (
        Cached,
        load_labelled,
        markdown,
        score_heldout,
        score_stolaf,
    )

    refuse_results(results, overwrite)
    table = _subjects(subjects)
    cm, name = _model(True, model_dir, endpoint, served_name, api_key, table)
    card_dir = model_dir or default_model_dir()
    card = read_card(card_dir).model_dump() if (card_dir / "clause_model.json").exists() else {}
    data = data or (Path(card["data"]["dataset"]) if card else None)
    if data is None:
        fail("--data: no held-out families given and no model card to find them in")
    fb = Cached(cm)
    try:
        items = load_labelled(devset)
    except (OSError, ValueError) as exc:
        fail(str(exc))
    held = score_heldout(fb, data, k, lambda rows: tqdm(rows, desc="held-out families"))
    olaf = score_stolaf(fb, items, table, lambda rows: tqdm(rows, desc="St. Olaf strings"))
    backend = f"endpoint {endpoint}" if endpoint else "embedded (in-process)"
    doc = {"model": name, "layout": cm.layout, "backend": backend, "card": card,
           "heldout": held, "stolaf": olaf, "calls": fb.stats()}  # fmt: skip
    md = markdown(doc)
    if results is not None:
        write_results(results, doc, md, overwrite=overwrite)
    typer.echo(md)


def register(catalog_app: typer.Typer) -> None:
    catalog_app.command("eval")(evaluate)


def register_bench(bench_app: typer.Typer) -> None:
    bench_app.command("catalog")(bench_catalog)
    bench_app.command("clause-model")(bench_clause_model)
