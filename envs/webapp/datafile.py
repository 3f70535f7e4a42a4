"""Load a local app's data file (JSON) into pydantic models; errors name the file and field."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from common.loading import LoadError, load_json, validate

M = TypeVar("M", bound=BaseModel)


class DataFileError(ValueError):
    """A site data file is unreadable or invalid; the message names the file and the field."""


def load_model_file(path: str | Path, model: type[M]) -> M:
    """Read `path` as JSON and validate it as `model`; the first error names file and field."""
    try:
        return validate(model, load_json(path, "data file"), str(path))
    except LoadError as e:
        raise DataFileError(str(e)) from None


def write_model_file(path: str | Path, obj: BaseModel, *, overwrite: bool = False) -> Path:
    """Write `obj` as indented JSON; an existing file is kept unless `overwrite`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = "w" if overwrite else "x"
    with path.open(mode, encoding="utf-8") as fh:
        fh.write(obj.model_dump_json(indent=1) + "\n")
    return path
