from __future__ import annotations

import pytest

from data_export.middle.export import SFTExportConfig, export_sft


@pytest.fixture
def run_export(tmp_path):
    """Export tmp_path/traces-style dir to a fresh folder; returns (manifest, out)."""
    counter = {"n": 0}

    def run(traces, **kw):
        counter["n"] += 1
        out = kw.pop("out", tmp_path / f"out{counter['n']}")
        return export_sft(SFTExportConfig(traces=traces, out=out, **kw)), out

    return run
