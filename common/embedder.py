"""A sentence-embedding model loaded from disk only (a local folder or an installed package).

Shared by the planner's embedding interest and OdoBot's target matcher. Nothing is ever
downloaded: a name that is neither a folder nor already in the local cache is a configuration
error, raised as one EmbedderError line.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

INSTALL_HINT = "pip install -e '.[embed]' (or pip install 'sentence-transformers>=6.2,<7')"


class EmbedderError(RuntimeError):
    """The embedding backend cannot run: package missing or model not loadable."""


def model_key(model: str) -> str:
    # One cache entry per directory however it was spelled (relative, absolute, symlink).
    p = Path(model).expanduser()
    return str(p.resolve()) if p.exists() else model


@lru_cache(maxsize=2)
def load_embedder(model: str) -> SentenceTransformer:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise EmbedderError(f"embeddings need sentence-transformers: {INSTALL_HINT}") from exc
    try:
        return SentenceTransformer(model, device="cpu", local_files_only=True)
    except Exception as exc:
        raise EmbedderError(
            f"cannot load embedding model {model!r} (a local sentence-transformers directory "
            f"or an installed model name is expected): {type(exc).__name__}: {exc}"
        ) from exc
