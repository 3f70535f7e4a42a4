"""Never-overwriting report folders: written under a temp name and renamed in when complete."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class OutExistsError(FileExistsError):
    """--out already exists; evals never overwrite a report."""


def refuse_existing(out: Path) -> None:
    if Path(out).exists():
        raise OutExistsError(
            f"refusing to overwrite existing output {out}: eval reports are never overwritten; "
            "choose a new --out (or move the old one away)"
        )


@contextlib.contextmanager
def fresh_dir(out: Path) -> Iterator[Path]:
    """A temp folder beside `out`, renamed to `out` on success and removed on error."""
    out = Path(out)
    refuse_existing(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    refuse_existing(out)  # something appeared meanwhile
    os.rename(tmp, out)


def write_json(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
