"""Contract sites end to end in headless Chromium: teacher, access wall, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_runtime.runner.batch import run_batch
from agent_runtime.runner.config import RunConfig
from agent_runtime.runner.factories import resources_for
from agent_runtime.runner.traces import iter_rows, trace_files
from contracts.step_row import RolloutOutcome, StepRow
from envs.miniwob.contracts import write_contracts
from envs.sites.pairing import world_contracts
from envs.sites.world import generate_world

pytestmark = pytest.mark.browser
W = generate_world()
BY_ID = {c.contract_id: c for c in world_contracts(W)}


def _rows(run_dir: Path) -> tuple[list[StepRow], list[RolloutOutcome]]:
    steps, outs = [], []
    for path in trace_files(run_dir):
        for _, row, _ in iter_rows(path):
            if isinstance(row, StepRow):
                steps.append(row)
            elif isinstance(row, RolloutOutcome):
                outs.append(row)
    return steps, outs


def test_teacher_passes_one_contract_per_site_and_stops_at_a_wall(tmp_path: Path) -> None:
    ids = [
        "shop-01/explicit_control",
        "directory-01/explicit_control",
        "booking-05/explicit_control",
        "docs-01/explicit_control",
        "shop-06/explicit_control",
    ]
    contracts = [BY_ID[i] for i in ids]
    cfg = RunConfig(workers=2, screenshots=False)
    run_batch(contracts, tmp_path, cfg, resources=resources_for(cfg, contracts), progress=False)
    steps, outs = _rows(tmp_path)
    final = {o.contract.contract_id: o for o in outs}
    for cid in ids[:4]:
        o = final[cid]
        assert o.terminal == "answer" and o.gates is not None and o.gates.cgs, (cid, o.gates)
        assert o.success
        answer = next(
            s for s in steps if s.contract.contract_id == cid and s.top.decision == "answer"
        )
        assert json.loads(answer.top.answer)["selection"] in W.gold[o.contract.base_task_id].valid
    walled = final["shop-06/explicit_control"]
    assert walled.terminal == "access_failure" and walled.access_failure is not None
    assert not walled.success and not walled.gates.cgs
    wsteps = sorted(
        (s for s in steps if s.contract.contract_id == walled.contract.contract_id),
        key=lambda s: s.step_index,
    )
    last = wsteps[-1]
    assert last.observation.access_signal is not None  # the wall was the last thing seen
    assert last.top.decision == "block" or last.outcome.status == "access_blocked"
    assert not any(
        "/login" in s.observation.url and s.action and s.action.action.type == "type"
        for s in wsteps
    )


def test_resumed_batch_loses_nothing(tmp_path: Path) -> None:
    contracts = [c for c in BY_ID.values() if c.persona.name == "explicit_control"][:12]
    cfile = tmp_path / "c.jsonl"
    write_contracts(contracts, cfile)
    run_dir = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "pathwise.cli",
        "run",
        "--contracts",
        str(cfile),
        "--out",
        str(run_dir),
        "--no-screenshots",
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    trace = run_dir / "traces" / "shard-0-of-1.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if trace.exists() and trace.read_text().count('"kind":"outcome"') >= 3:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = trace.read_text().splitlines()
    subprocess.run(
        cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300
    )
    after = trace.read_text().splitlines()
    assert after[: len(before) - 1] == before[:-1], "rows written before the kill were changed"
    _, outs = _rows(run_dir)
    finals: dict[str, list[RolloutOutcome]] = {}
    for o in outs:
        finals.setdefault(o.contract.contract_id, []).append(o)
    assert set(finals) == {c.contract_id for c in contracts}
    assert all(len(v) == 1 for v in finals.values()), "a finished rollout ran twice"
