"""The model under offline eval in this process: the embedded backend (an endpoint is opened by
serving.endpoint.EndpointSpec.client)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from serving.protocol import ChatBackend


def local_backend(model_dir: Path, adapter_dir: Path | None) -> ChatBackend:
    """In-process transformers backend with schema-constrained decoding (serving/embedded.py)."""
    try:
        from serving.embedded import EmbeddedBackend
    except ImportError as e:  # the [train] extra (torch, transformers) or the module is absent
        raise RuntimeError(
            f"--local needs serving.embedded and the [train] extra (torch, transformers): {e}"
        ) from e
    return EmbeddedBackend(str(model_dir), str(adapter_dir) if adapter_dir else None)


def close(backend: Any) -> None:
    fn = getattr(backend, "close", None)
    if callable(fn):
        fn()
