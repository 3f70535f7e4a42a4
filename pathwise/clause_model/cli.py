"""`pathwise catalog clause-model train`: export, train, merge, score and card, resumable."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from common.cli import fail

app = typer.Typer(
    help="KnowPlan's clause-to-AST model: train it once, then `catalog parse-prereq --model`.",
    no_args_is_help=True,
)


@app.command("train")
def train(
    out: Annotated[
        Path,
        typer.Option(
            help="Work folder: data/, adapter/, model/ (the model the fallback uses by default "
            "is runs/clause-model/model, or $PATHWISE_CLAUSE_MODEL). A rerun resumes it.",
            resolve_path=True,
        ),
    ] = Path("runs/clause-model"),
    config: Annotated[
        Path | None,
        typer.Option(
            help="Pipeline YAML (default: pathwise/clause_model/config.yaml, SmolLM2 on a CPU; "
            "pathwise/clause_model/gpu.yaml: Qwen3-4B from the Hugging Face cache on a GPU). "
            "Its recipe and base_dir are paths in the repository, as in the shipped ones.",
            resolve_path=True,
        ),
    ] = None,
    max_steps: Annotated[
        int | None, typer.Option(min=1, help="Override the recipe's optimizer steps.")
    ] = None,
    records: Annotated[int | None, typer.Option(min=1, help="Training records.")] = None,
    layout: Annotated[
        str | None, typer.Option(help="Answer layout: keyed, prefix or tree.")
    ] = None,
    recipe: Annotated[
        Path | None, typer.Option(help="Another clause recipe (YAML path).", resolve_path=True)
    ] = None,
) -> None:
    """Export the generator's clause records, train the recipe's LoRA on the pretrained base
    (`pathwise train`), merge it, score it on the generator's held-out families and write the
    model card. Every finished stage is skipped on a rerun; training resumes its checkpoint."""
    from catalogbrowse.clause_card import default_model_dir
    from pathwise.clause_model.pipeline import load_config, run

    try:
        cfg = load_config(
            config, records=records, layout=layout, recipe=str(recipe) if recipe else None
        )
    except ValueError as exc:
        fail(exc)
    try:
        card = run(cfg, out, max_steps)
    except (RuntimeError, ValueError, OSError) as exc:
        fail(exc)
    model = out / "model"
    h = card.scores["heldout_families"]
    typer.secho(f"model: {model} (card: {model / 'README.md'})", fg="green")
    typer.echo(
        f"held-out families: model alone {100 * h['model_alone']['share']:.1f}%, grammar + "
        f"model {100 * h['grammar_plus_model']['share']:.1f}% of {h['n']} records"
    )
    if model.resolve() != default_model_dir().resolve():
        typer.echo(f"not the default location: export PATHWISE_CLAUSE_MODEL={model}")


def register(catalog_app: typer.Typer) -> None:
    catalog_app.add_typer(app, name="clause-model")
