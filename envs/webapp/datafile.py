"""Load a local app's data file (JSON) into pydantic models; errors name the file and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


class DataFileError(ValueError):
    """A site data file is unreadable or invalid; the message names the file and the field."""


def field_path(loc: tuple[int | str, ...]) -> str:
    """('items', 3, 'price') -> 'items[3].price'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<root>"


def load_model_file(path: str | Path, model: type[M]) -> M:
    """Read `path` as JSON and validate it as `model`; the first error names file and field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise DataFileError(f"{path}: cannot read data file: {e.strerror}") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise DataFileError(f"{path}:{e.lineno}: not valid JSON: {e.msg}") from e
    try:
        return model.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        raise DataFileError(f"{path}: field '{field_path(err['loc'])}': {err['msg']}") from e


def write_model_file(path: str | Path, obj: BaseModel, *, overwrite: bool = False) -> Path:
    """Write `obj` as indented JSON; an existing file is kept unless `overwrite`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = "w" if overwrite else "x"
    with path.open(mode, encoding="utf-8") as fh:
        fh.write(obj.model_dump_json(indent=1) + "\n")
    return path
