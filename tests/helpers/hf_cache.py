"""A Hugging Face hub cache built on disk, as `hf download` leaves it, for the hub-id code paths.

Nothing here reaches the hub: `offline` points huggingface_hub at the cache and sets it offline
(both are read once at import, so the module's constants are patched, not the environment).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

REVISION = "0123456789abcdef0123456789abcdef01234567"


def hf_cache(
    root: Path, repo_id: str, config: dict | None = None, source: Path | None = None
) -> Path:
    """Cache `repo_id` under root/hub: `source`'s files, or a lone config.json; the snapshot."""
    folder = root / "hub" / f"models--{repo_id.replace('/', '--')}"
    snap = folder / "snapshots" / REVISION
    if source is not None:
        shutil.copytree(source, snap)
    else:
        snap.mkdir(parents=True)
        (snap / "config.json").write_text(json.dumps(config or {}))
    (folder / "refs").mkdir(exist_ok=True)
    (folder / "refs" / "main").write_text(snap.name)
    return snap


def offline(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    import huggingface_hub.constants as hub_constants

    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(root / "hub"))
