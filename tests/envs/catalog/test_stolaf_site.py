"""The St. Olaf catalog site renders every program of the converted catalog in prose."""

from __future__ import annotations

from pathlib import Path

from envs.catalog.stolaf import _program_lines
from planner.documents import load_docs

STOLAF = Path(__file__).resolve().parents[3] / "data/catalogs/stolaf"


def test_every_program_requirement_renders_including_pools() -> None:
    docs = load_docs(STOLAF)
    lines = [t for p in docs.programs.programs for _label, t in _program_lines(p, {})]
    assert lines and all(t.strip(" .") for t in lines)
    # Department-wide pools ("six courses from ...") are requirements in words, not a crash.
    assert any("courses from" in t for t in lines)
