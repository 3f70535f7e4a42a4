"""The one error of a base that cannot be imported; its message says which package, part, file
or hash, in one line."""

from __future__ import annotations


class ImportError_(RuntimeError):
    """An entry cannot be imported; the message says which package, part, file or hash."""
