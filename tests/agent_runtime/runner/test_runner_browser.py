"""The runner end to end in headless Chromium on MiniWoB++: traces, resume, failures (a kill and
rerun, in shards started together: test_shards.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_runtime.runner.batch import run_batch
from agent_runtime.runner.config import RunConfig
from agent_runtime.runner.factories import resources_for
from agent_runtime.runner.traces import iter_rows, trace_files
from contracts.step_row import RolloutOutcome, StepRow
from envs.miniwob.contracts import miniwob_contracts

pytestmark = pytest.mark.browser


def _rows(run_dir: Path) -> tuple[list[StepRow], list[RolloutOutcome], list[str]]:
    steps, outs, errors = [], [], []
    for path in trace_files(run_dir):
        for lineno, row, err in iter_rows(path):
            if err:
                errors.append(f"{path.name}:{lineno}: {err}")
            elif isinstance(row, StepRow):
                steps.append(row)
            else:
                outs.append(row)
    return steps, outs, errors


def test_run_writes_step_rows_screenshots_and_outcomes(tmp_path):
    contracts = miniwob_contracts(["click-button", "enter-text"], [100, 101])
    cfg = RunConfig(workers=2)
    outs = run_batch(
        contracts, tmp_path, cfg, resources=resources_for(cfg, contracts), progress=False
    )
    assert len(outs) == 4
    steps, outcomes, errors = _rows(tmp_path)
    assert not errors
    assert {o.contract.contract_id for o in outcomes} == {c.contract_id for c in contracts}
    assert all(o.success and o.raw_reward == 1.0 for o in outcomes)
    for s in steps:
        assert s.action is not None and s.guard is not None
        assert (tmp_path / s.observation.screenshot).is_file()
        assert s.observation.labels, "set-of-mark labels missing"
    # enter-text needs a type then a click: the history seen by the 2nd step holds the 1st.
    et = sorted((s for s in steps if "enter-text/100" in s.rollout_id), key=lambda s: s.step_index)
    assert et[0].action.action.type == "type"
    assert et[1].history.actions[-1].action_type == "type"
    events = list((tmp_path / "events").glob("*.jsonl"))
    assert events and any("click" in p.read_text() for p in events)


def test_rerun_skips_finished_rollouts(tmp_path):
    contracts = miniwob_contracts(["click-button"], [1, 2])
    cfg = RunConfig()
    first = run_batch(
        contracts, tmp_path, cfg, resources=resources_for(cfg, contracts), progress=False
    )
    again = run_batch(
        contracts, tmp_path, cfg, resources=resources_for(cfg, contracts), progress=False
    )
    assert len(first) == 2 and again == []


def test_runtime_failure_is_labeled_and_the_batch_goes_on(tmp_path, monkeypatch):
    from agent_runtime.runner import factories

    contracts = miniwob_contracts(["click-button"], [5, 6])
    real = factories.BrowserEpisode.execute
    calls = {"n": 0}

    def crash_once(self, ast):
        if self.seed == 5:
            calls["n"] += 1
            self.page.close()  # the page dies under the executor, as in a renderer crash
        return real(self, ast)

    monkeypatch.setattr(factories.BrowserEpisode, "execute", crash_once)
    cfg = RunConfig(retries=1)
    outs = run_batch(
        contracts, tmp_path, cfg, resources=resources_for(cfg, contracts), progress=False
    )
    by_id = {o.contract.contract_id: o for o in outs}
    assert by_id["miniwob/click-button/6"].success
    failed = by_id["miniwob/click-button/5"]
    assert failed.terminal == "runtime_failure" and failed.runtime_failure
    assert calls["n"] == 2  # one retry, then the label stands
    _, outcomes, _ = _rows(tmp_path)
    assert [o.attempt for o in outcomes if o.seed == 5] == [0, 1]


def test_invalid_contract_file_names_line_and_field_and_writes_nothing(tmp_path):
    good = miniwob_contracts(["click-button"], [1])[0].model_dump(mode="json")
    bad = dict(good, contract_id="other", persona={"name": "x", "axes": {}, "criterion": "c"})
    cfile = tmp_path / "c.jsonl"
    cfile.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    out = tmp_path / "run"
    r = subprocess.run(
        [sys.executable, "-m", "pathwise.cli", "run", "--contracts", str(cfile), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert "c.jsonl:2: field 'persona" in r.stderr
    assert not out.exists()
