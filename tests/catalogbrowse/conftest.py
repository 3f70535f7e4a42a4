"""A masked CourseLeaf snapshot (seed 5), built once per session for the agent tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.catalog.synth.build import build_synth


@pytest.fixture(scope="session")
def masked_courseleaf(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("masked") / "courseleaf"
    build_synth("courseleaf", 5, root, masked=True)
    return root
