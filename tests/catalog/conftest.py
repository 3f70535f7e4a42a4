"""Shared fixtures: snapshots built once per session (small, seeded), served through the gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.catalog.synth.build import build_synth

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def snapshots(tmp_path_factory) -> dict[str, Path]:
    """family -> snapshot root (site/ + gold/), plain track, seed 5."""
    root = tmp_path_factory.mktemp("catalog")
    out = {}
    for fam in ("courseleaf", "acalog", "api", "pdf", "custom"):
        build_synth(fam, 5, root / fam)
        out[fam] = root / fam
    return out


@pytest.fixture(scope="session")
def masked_courseleaf(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("masked") / "courseleaf"
    build_synth("courseleaf", 5, root, masked=True)
    return root
