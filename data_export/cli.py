"""`pathwise export sft|clauses`: trace and clause exporters (heavy imports inside the commands)."""

from __future__ import annotations

from pathlib import Path

import typer

from common.cli import fail

export_app = typer.Typer(
    help="Export SFT datasets (middle layer; clause-to-AST).", no_args_is_help=True
)


def _bars(total: int | None = None):
    from tqdm import tqdm

    bars: dict[str, tqdm] = {}

    def progress(stage: str, n: int) -> None:
        bar = bars.get(stage)
        if bar is None:
            bar = bars[stage] = tqdm(desc=stage, unit="row", total=total, leave=False)
        bar.update(n)

    def close() -> None:
        for bar in bars.values():
            bar.close()

    return progress, close


def _table(rows: list[tuple[str, object]], title: str) -> None:
    width = max(len(k) for k, _ in rows)
    typer.echo(title)
    for k, v in rows:
        typer.echo(f"  {k:<{width}}  {v:>8}" if isinstance(v, int) else f"  {k:<{width}}  {v}")


@export_app.command("sft")
def sft(
    traces: Path = typer.Option(..., help="Trace directory: **/*.jsonl step rows + screenshots."),
    out: Path = typer.Option(..., help="New output folder (DatasetDict + manifest.json)."),
    eval_fraction: float = typer.Option(0.08, help="Share of base tasks held out for eval."),
    seed: int = typer.Option(20260606, help="Seed mixed into the base_task_id hash."),
    min_confidence: float = typer.Option(0.5, help="Drop rows whose middle_confidence is below."),
    overwrite: bool = typer.Option(
        False, "--force", "--overwrite", help="Replace an existing --out folder."
    ),
    images: bool = typer.Option(
        True,
        "--images/--no-images",
        help="--no-images: text path only (inspection); not for VL training.",
    ),
    middle_format: str = typer.Option(
        "paper",
        help='Interface format: paper (the default), text-first (label lines `role "text" '
        "[N]`) or echo (text-first, and the answer names the target's text before its number).",
    ),
    heldout: str = typer.Option(
        "",
        "--heldout-tasks",
        help="Comma-separated task families kept for evaluation (miniwob/click-test, or a bare "
        "MiniWoB++ task name): a trace row of one stops the export, nothing written.",
    ),
) -> None:
    """Guarded step rows -> middle-layer SFT records (WebRider Appendix E filters and split)."""
    from agent_runtime.middle.format import get_format
    from common.outputs import OutputExistsError
    from data_export.middle.export import SFTExportConfig, export_sft

    try:
        fmt = get_format(middle_format)
    except ValueError as e:
        fail(e)

    cfg = SFTExportConfig(
        traces=traces,
        out=out,
        eval_fraction=eval_fraction,
        seed=seed,
        min_confidence=min_confidence,
        overwrite=overwrite,
        images=images,
        middle_format=fmt,
        heldout_families=tuple(
            t if "/" in t else f"miniwob/{t}" for t in (x.strip() for x in heldout.split(",")) if t
        ),
    )
    progress, close = _bars()
    try:
        m = export_sft(cfg, progress)
    except (OutputExistsError, FileNotFoundError, ValueError) as e:
        close()
        fail(e)
    close()
    c, s = m["counts"], m["split"]
    rows: list[tuple[str, object]] = [("step rows read", c["step_rows"])]
    rows += [(f"filtered: {r}", n) for r, n in c["filtered"].items()]
    rows += [(f"bad: {r}", v["count"]) for r, v in m["bad_rows"].items()]
    rows += [
        ("kept", c["kept"]),
        ("train", s["sizes"]["train"]),
        ("eval", s["sizes"]["eval"]),
        ("eval prompts also in train", f"{m['prompt_overlap']['share']:.1%}"),
        ("corpus sha256", m["corpus_sha256"][:16]),
        ("seconds", m["seconds"]),
    ]
    _table(rows, f"export sft -> {out}")
    for r, v in m["bad_rows"].items():
        for ex in v["examples"][:3]:
            typer.echo(f"  e.g. {r}: {ex}")
    for w in m["warnings"]:
        typer.secho(f"warning: {w}", fg="yellow", err=True)


@export_app.command("clauses")
def clauses(
    out: Path = typer.Option(..., help="New output folder (DatasetDict + manifest.json)."),
    n: int = typer.Option(5000, help="Training records (the generator's training families)."),
    eval_n: int = typer.Option(
        400, help="Eval records (its held-out families; see --eval-families)."
    ),
    leaf_share: float = typer.Option(
        0.0,
        min=0.0,
        max=1.0,
        help="Share of training records that are one leaf, as the grammar's partial parse asks "
        "the model (eval records keep the whole-span mix).",
    ),
    seed: int = typer.Option(0, help="Generator seed (same seed, same records)."),
    layout: str = typer.Option(
        "keyed", help="Answer layout: keyed (measured best, docs/catalog.md), prefix or tree."
    ),
    overwrite: bool = typer.Option(
        False, "--force", "--overwrite", help="Replace an existing --out folder."
    ),
    real_spans: list[Path] = typer.Option(
        None,
        help="Real prerequisite strings (term JSON, JSONL {text}, or text) the grammar types "
        "fully; never St. Olaf's, which are the transfer test.",
    ),
    exclude: Path = typer.Option(None, help="Held-out strings (JSONL {text}) never trained on."),
    eval_families: str = typer.Option(
        "held-out",
        help="Eval split from the held-out families (held-out), or fresh draws from the training "
        "families (training: how well a model learned what it was shown).",
    ),
) -> None:
    """Synthetic catalog prerequisite spans -> clause-AST records (KnowPlan deterministic-first)."""
    from common.outputs import OutputExistsError
    from data_export.clauses.export import ClauseExportConfig, export_clauses

    if exclude is not None and not real_spans:
        # Held-out strings only matter against real spans; recording them otherwise would claim
        # a hold-out that never happened.
        fail("--exclude applies to --real-spans; give the real spans it holds out from")
    if eval_families not in ("held-out", "training"):
        fail(f"--eval-families: {eval_families!r} is not held-out or training")
    cfg = ClauseExportConfig(
        out=out,
        n=n,
        eval_n=eval_n,
        leaf_share=leaf_share,
        seed=seed,
        layout=layout,
        overwrite=overwrite,
        real_spans=list(real_spans) if real_spans else None,
        exclude=exclude,
        eval_families="held_out" if eval_families == "held-out" else "training",
    )
    progress, close = _bars(total=n + eval_n)
    try:
        m = export_clauses(cfg, progress)
    except (OutputExistsError, ValueError) as e:
        close()
        fail(e)
    close()
    c, s = m["counts"], m["split"]
    rows: list[tuple[str, object]] = [("records", c["records"]), ("distinct ASTs", c["asts"])]
    rows += [("layout", m["layout"])]
    rows += [(f"{split} {k}", v) for split, kinds in c["kind"].items() for k, v in kinds.items()]
    rows += [(f"root: {k}", v) for k, v in c["root_kind"].items()]
    rows += [
        ("span violations", c["span_violations"]),
        ("train", s["sizes"]["train"]),
        (f"eval ({eval_families} families)", s["sizes"]["eval"]),
        ("seconds", m["seconds"]),
    ]
    _table(rows, f"export clauses -> {out}")
    for w in m["warnings"]:
        typer.secho(f"warning: {w}", fg="yellow", err=True)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(export_app, name="export")
