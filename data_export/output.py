"""Atomic, never-overwriting output: a temp folder beside the target, renamed in at the end."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class OutputExistsError(FileExistsError):
    """The output folder exists and overwrite was not requested."""


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def check_out(out: Path, overwrite: bool) -> None:
    """Refuse early (before any work) when the output already exists."""
    if out.exists() and not overwrite:
        raise OutputExistsError(
            f"refusing to overwrite existing output {out}: pass --overwrite, or choose a new --out"
        )


@contextlib.contextmanager
def atomic_dir(out: Path, overwrite: bool = False) -> Iterator[Path]:
    """Yield a fresh temp folder; on success it replaces `out` by one rename, on error it goes.

    A crash (even SIGKILL) can leave only a hidden `.<name>.tmp-*` folder, never a half dataset at
    `out`.
    """
    out = Path(out)
    check_out(out, overwrite)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if out.exists():
        check_out(out, overwrite)  # something appeared meanwhile
        old = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:8]}"
        os.rename(out, old)
    os.rename(tmp, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_json(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, indent=2, sort_keys=False, ensure_ascii=False) + "\n")
