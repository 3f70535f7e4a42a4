"""A writable copy of the fixture runs (tests/helpers/viewer_runs) for each viewer test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.viewer_runs import FIXTURE


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """A writable copy of the fixture runs (teacher, perturbed, contracts.jsonl)."""
    dst = tmp_path / "runs"
    shutil.copytree(FIXTURE, dst)
    return dst
