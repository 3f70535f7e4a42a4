"""The options of every command that calls a served middle, declared once: `--endpoint`,
`--model`, `--api-key`, `--vision/--text-only`, `--grounded-schema`, `--middle-format`.

`@middle_options` adds them to a Typer command and hands the command one validated `MiddleSpec`
as its `middle` argument (kind `endpoint` when `--endpoint` is given, else `heuristic`); a bad
value is one line and exit code 2 before the command starts.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError

from agent_runtime.runner.config import MiddleSpec
from common.cli import (
    ApiKey,
    Endpoint,
    GroundedSchema,
    MiddleFormat,
    ServedModel,
    Vision,
    fail,
)
from serving.endpoint import EndpointSpec

R = TypeVar("R")

# name -> (annotation with its typer.Option, default); the command's own parameters come first.
OPTIONS: dict[str, tuple[Any, Any]] = {
    "endpoint": (Endpoint, None),
    "model": (ServedModel, None),
    "api_key": (ApiKey, None),
    "vision": (Vision, None),
    "grounded_schema": (GroundedSchema, False),
    "middle_format": (MiddleFormat, None),
}


def build_middle(
    endpoint: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    vision: bool | None = None,
    grounded_schema: bool = False,
    middle_format: str | None = None,
) -> MiddleSpec:
    """The spec the options describe; raises ValueError with the option named."""
    if endpoint and not model:
        raise ValueError("--endpoint needs --model (the served model or adapter name)")
    if model and not endpoint:
        raise ValueError("--model names a model at --endpoint; give --endpoint too")
    try:
        served = EndpointSpec(url=endpoint, model=model, api_key=api_key) if endpoint else None
        return MiddleSpec(
            kind="endpoint" if served else "heuristic",
            endpoint=served,
            vision=vision,
            grounded_schema=grounded_schema,
            middle_format=middle_format,
        )
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "value"
        name = {"url": "--endpoint", "middle_format": "--middle-format"}.get(field, field)
        raise ValueError(f"{name}: {err['msg']}") from None


def middle_options(command: Callable[..., R]) -> Callable[..., R]:
    """Add the served-middle options to `command(..., middle: MiddleSpec)`."""
    hints = typing.get_type_hints(command, include_extras=True)
    own = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in inspect.signature(command).parameters.values()
        if p.name != "middle"
    ]
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=ann, default=default)
        for name, (ann, default) in OPTIONS.items()
    ]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> R:
        given = {name: kwargs.pop(name, default) for name, (_, default) in OPTIONS.items()}
        try:
            middle = build_middle(**given)
        except ValueError as e:
            fail(e)
        return command(*args, middle=middle, **kwargs)

    params = [*own, *added]
    wrapper.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    return wrapper
