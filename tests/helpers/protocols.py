"""What a runtime-checkable Protocol's isinstance() does not check: that each method accepts
every call the protocol allows (its parameters in order, by name and kind, defaults where it has
them; any further parameter optional) and declares the protocol's return type, and that each
attribute the protocol declares holds a value of the declared type.

isinstance(obj, Proto) only asks whether the names exist, so a `step(self)` with no parameters
or a `name = None` passes it; assert_implements does not.
"""

from __future__ import annotations

import inspect
import typing
from typing import Any


def _members(proto: type) -> tuple[dict[str, Any], list[str]]:
    hints = typing.get_type_hints(proto)
    methods = [m for m, v in vars(proto).items() if callable(v) and not m.startswith("_")]
    return hints, methods


def _params(fn: Any) -> list[inspect.Parameter]:
    params = list(inspect.signature(fn).parameters.values())
    return params[1:] if params and params[0].name == "self" else params


def _accepts(impl: Any, proto_fn: Any) -> str | None:
    """Why `impl` cannot stand in for `proto_fn`, or None when it can."""
    want, got = _params(proto_fn), _params(impl)
    for i, w in enumerate(want):
        if i >= len(got):
            return f"has no parameter {w.name!r}"
        g = got[i]
        if (g.name, g.kind) != (w.name, w.kind):
            return f"takes {g.name!r} ({g.kind.description}) where the protocol has {w.name!r}"
        if w.default is not inspect.Parameter.empty and g.default is inspect.Parameter.empty:
            return f"requires {g.name!r}, which the protocol lets callers leave out"
    optional = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    extra = [g.name for g in got[len(want) :] if g.default is g.empty and g.kind not in optional]
    return f"requires parameters the protocol does not pass: {extra}" if extra else None


def _returns(fn: Any) -> Any:
    return typing.get_type_hints(fn).get("return", inspect.Signature.empty)


def assert_implements(obj: Any, proto: type) -> None:
    """Fail, naming the member, where `obj` (an instance, or a class for its methods only)
    differs from `proto` in a way a runtime-checkable isinstance() would let through."""
    hints, methods = _members(proto)
    cls = obj if isinstance(obj, type) else type(obj)
    assert methods or hints, f"{proto.__name__} declares nothing to check"
    for name in methods:
        impl = getattr(cls, name, None)
        assert callable(impl), f"{cls.__name__}.{name} is missing or not callable"
        why = _accepts(impl, getattr(proto, name))
        assert why is None, f"{cls.__name__}.{name} {why} ({proto.__name__}.{name})"
        ret = _returns(getattr(proto, name))
        assert _returns(impl) == ret, (
            f"{cls.__name__}.{name} returns {_returns(impl)}, {proto.__name__} says {ret}"
        )
    if obj is cls:
        return
    for name, typ in hints.items():
        assert hasattr(obj, name), f"{cls.__name__} has no attribute {name!r}"
        value = getattr(obj, name)
        assert isinstance(value, typing.get_origin(typ) or typ), (
            f"{cls.__name__}.{name} is {value!r}, {proto.__name__} says {typ}"
        )
