"""Never-overwriting outputs: written under a temp name beside the target, renamed in at the end.

A crash (even SIGKILL) leaves at most a hidden `.<name>.tmp-*` sibling, never half an output at
the target path, and an output that exists is refused before any work is done.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class OutputExistsError(FileExistsError):
    """The output exists and the command was not told to replace it."""


def refuse_existing(out: Path, overwrite: bool = False, flag: str | None = None) -> None:
    """Refuse early, before any work, when `out` exists; `flag` names the command's override."""
    if Path(out).exists() and not overwrite:
        hint = f"pass {flag} or choose a new --out" if flag else "choose a new --out"
        raise OutputExistsError(
            f"refusing to overwrite {out}: outputs are never overwritten; {hint}"
        )


def _tmp_beside(out: Path) -> Path:
    return out.parent / f".{out.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _swap_in(tmp: Path, out: Path, overwrite: bool, flag: str | None) -> None:
    old = None
    if out.exists():
        refuse_existing(out, overwrite, flag)  # something appeared meanwhile
        old = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:8]}"
        os.rename(out, old)
    os.rename(tmp, out)
    if old is not None:
        if old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_dir(out: Path, overwrite: bool = False, flag: str | None = None) -> Iterator[Path]:
    """Yield a fresh temp folder; on success it becomes `out` by one rename, on error it goes."""
    out = Path(out)
    refuse_existing(out, overwrite, flag)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = _tmp_beside(out)
    tmp.mkdir()
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _swap_in(tmp, out, overwrite, flag)


@contextlib.contextmanager
def atomic_file(out: Path, overwrite: bool = False, flag: str | None = None) -> Iterator[Path]:
    """Yield a temp path to write one file at; on success it becomes `out`, on error it goes."""
    out = Path(out)
    refuse_existing(out, overwrite, flag)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = _tmp_beside(out)
    try:
        yield tmp
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _swap_in(tmp, out, overwrite, flag)


def write_json(path: Path, obj: Any) -> None:
    Path(path).write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
