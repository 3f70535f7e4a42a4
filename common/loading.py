"""Reading the files a command is given: one small set of functions for every loader.

Each failure class becomes one `LoadError` whose message names the file and, where it applies,
the line or the field: a missing file, a directory where a file belongs, an empty file, bytes
that are not UTF-8, JSON or YAML that does not parse, nesting deeper than `MAX_DEPTH`, NaN or
Infinity or a number that overflows, a lone surrogate in a string, and data of the wrong shape
(pydantic's first error, with its field path). Commands turn a LoadError into `common.cli.fail`
(one line, exit code 2), so no traceback and no half-written output follows bad input.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

M = TypeVar("M", bound=BaseModel)
MAX_DEPTH = 64  # deeper than any file this project writes, far below Python's recursion limit
MAX_INT_DIGITS = 30  # any count, seed or index fits; more is a typo or an attack


class LoadError(ValueError):
    """A file cannot be used; the message is one line naming the file (line, field)."""


def field_path(loc: tuple[int | str, ...]) -> str:
    """('items', 3, 'price') -> 'items[3].price'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<root>"


def validation_message(e: ValidationError) -> str:
    """Pydantic's first error as "field 'a.b': message (and N more)"."""
    err = e.errors()[0]
    msg = str(err["msg"]).removeprefix("Value error, ")
    more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
    return f"field '{field_path(tuple(err['loc']))}': {msg}{more}"


def read_bytes(path: str | Path, what: str = "file", *, allow_empty: bool = False) -> bytes:
    path = Path(path)
    if path.is_dir():
        raise LoadError(f"{path}: is a directory where the {what} belongs")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise LoadError(f"{path}: no such {what}") from None
    except OSError as e:
        raise LoadError(f"{path}: cannot read {what}: {e.strerror or e}") from None
    if not allow_empty and not data.strip():
        raise LoadError(f"{path}: empty {what}")
    return data


def decode(data: bytes, where: str) -> str:
    """UTF-8 text (a BOM is dropped); invalid bytes name their line and column."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise LoadError(
            f"{where}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x} at column {col})"
        ) from None


def read_text(path: str | Path, what: str = "file", *, allow_empty: bool = False) -> str:
    return decode(read_bytes(path, what, allow_empty=allow_empty), str(path))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(f"number {text[:20]} overflows")
    return v


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"integer of {len(text)} digits is too large")
    return int(text)


def check_value(obj: Any, where: str) -> Any:
    """`obj` unchanged if it is nested at most MAX_DEPTH deep, holds only finite numbers and
    strings that encode as UTF-8; else LoadError (iterative: no recursion to exhaust)."""
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        v, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise LoadError(f"{where}: nested deeper than {MAX_DEPTH} levels")
        if isinstance(v, float) and not math.isfinite(v):
            raise LoadError(f"{where}: {v} is not a finite number")
        if isinstance(v, str):
            _check_str(v, where)
        elif isinstance(v, dict):
            for k, x in v.items():
                if isinstance(k, str):
                    _check_str(k, where)
                stack.append((x, depth + 1))
        elif isinstance(v, list | tuple):
            stack.extend((x, depth + 1) for x in v)
    return obj


def _check_str(s: str, where: str) -> None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise LoadError(f"{where}: a string holds a lone surrogate (not Unicode text)") from None


def parse_json(text: str, where: str) -> Any:
    """Strict JSON: no NaN/Infinity, no overflowing numbers, bounded depth, real Unicode."""
    try:
        obj = json.loads(text, parse_constant=_no_constant, parse_float=_float, parse_int=_int)
    except json.JSONDecodeError as e:
        loc = f"{where}:{e.lineno}" if "\n" in text.strip() else where
        raise LoadError(f"{loc}: not valid JSON: {e.msg} (column {e.colno})") from None
    except RecursionError:
        raise LoadError(f"{where}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as e:
        raise LoadError(f"{where}: {e}") from None
    return check_value(obj, where)


def load_json(path: str | Path, what: str = "JSON file") -> Any:
    return parse_json(read_text(path, what), str(path))


def iter_jsonl(
    path: str | Path, what: str = "JSONL file", *, comments: bool = False
) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-blank line; the first bad line raises naming it."""
    text = read_text(path, what, allow_empty=True)
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or (comments and line.lstrip().startswith("#")):
            continue
        yield lineno, parse_json(line, f"{path}:{lineno}")


def parse_yaml(text: str, where: str) -> Any:
    import yaml

    try:
        obj = yaml.safe_load(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise LoadError(f"{where}{line}: not valid YAML: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise LoadError(f"{where}: not valid YAML: {str(e).splitlines()[0]}") from None
    except RecursionError:
        raise LoadError(f"{where}: nested deeper than {MAX_DEPTH} levels") from None
    return check_value(obj, where)


def load_yaml(path: str | Path, what: str = "YAML file") -> Any:
    return parse_yaml(read_text(path, what), str(path))


def load_mapping(path: str | Path, what: str = "settings file") -> dict[str, Any]:
    """A YAML or JSON file whose top level must be a mapping."""
    p = Path(path)
    data = load_json(p, what) if p.suffix == ".json" else load_yaml(p, what)
    if not isinstance(data, dict):
        kind = "empty" if data is None else type(data).__name__
        raise LoadError(f"{p}: expected a mapping of settings at the top level, got {kind}")
    return data


def validate(model: type[M] | TypeAdapter[Any], data: Any, where: str) -> Any:
    """`data` as `model`; the first error names the field."""
    try:
        if isinstance(model, TypeAdapter):
            return model.validate_python(data)
        return model.model_validate(data)
    except ValidationError as e:
        raise LoadError(f"{where}: {validation_message(e)}") from None


def load_model(path: str | Path, model: type[M], what: str | None = None) -> M:
    """A JSON or YAML file validated as `model`."""
    p = Path(path)
    what = what or "file"
    data = load_json(p, what) if p.suffix == ".json" else load_yaml(p, what)
    return validate(model, data, str(p))


def load_jsonl_models(
    path: str | Path,
    model: type[M],
    what: str = "JSONL file",
    check: Callable[[M, int], None] | None = None,
) -> list[M]:
    """Every line of a JSONL file as `model`; the first bad line names file:line and field."""
    out = []
    for lineno, data in iter_jsonl(path, what, comments=True):
        item = validate(model, data, f"{path}:{lineno}")
        if check is not None:
            check(item, lineno)
        out.append(item)
    return out
