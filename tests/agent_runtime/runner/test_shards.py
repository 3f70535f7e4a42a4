"""`pathwise run --shard i/n` into one shared run folder, as a batch scheduler starts them: all at
once, one killed and rerun. The union of their traces is a one-process run of the same file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agent_runtime.runner.batch import RunDirError, _check_manifest
from agent_runtime.runner.config import MiddleSpec, RunConfig
from agent_runtime.runner.scheduler import in_shard
from agent_runtime.runner.traces import finished_outcomes, iter_rows, load_outcomes
from envs.miniwob.contracts import miniwob_contracts, write_contracts
from serving.endpoint import EndpointSpec

SHARDS = 3


def test_manifest_written_once_by_processes_racing_for_it(tmp_path):
    """Twelve writers released together: none fails, one manifest, no temporary file left."""
    cfg = RunConfig()
    barrier = threading.Barrier(12)
    errors: list[BaseException] = []

    def one(i: int) -> None:
        barrier.wait()
        try:
            _check_manifest(tmp_path, cfg.model_copy(update={"shard": f"{i}/12"}), "sha")
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]
    manifest = json.loads((tmp_path / "run.json").read_text())
    assert "shard" not in manifest["config"]
    served = EndpointSpec(url="http://x/v1", model="m")
    other = RunConfig(middle=MiddleSpec(kind="endpoint", endpoint=served))
    with pytest.raises(RunDirError, match="holds a run of policy 'teacher'"):
        _check_manifest(tmp_path, other, "sha")


@pytest.mark.browser
@pytest.mark.slow
def test_shards_started_together_one_killed_and_rerun(tmp_path):
    from agent_runtime.runner.batch import run_batch
    from agent_runtime.runner.factories import resources_for

    contracts = miniwob_contracts(["click-button", "focus-text", "enter-text"], range(300, 303))
    per_shard = [
        [c for c in contracts if in_shard(c.contract_id, (i, SHARDS))] for i in range(SHARDS)
    ]
    assert all(per_shard), "every shard must have work for this test to mean anything"
    cfile = tmp_path / "contracts.jsonl"
    write_contracts(contracts, cfile)

    # The reference: one process, the whole file.
    ref_dir = tmp_path / "one"
    cfg = RunConfig(screenshots=False)
    run_batch(contracts, ref_dir, cfg, resources=resources_for(cfg, contracts), progress=False)

    shared = tmp_path / "shared"

    def cmd(i: int) -> list[str]:
        return [sys.executable, "-m", "pathwise.cli", "run", "--contracts", str(cfile),
                "--out", str(shared), "--shard", f"{i}/{SHARDS}", "--no-screenshots"]  # fmt: skip

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE, "start_new_session": True}
    procs = [subprocess.Popen(cmd(i), env=env, **quiet) for i in range(SHARDS)]
    # Kill the biggest shard after its first row, mid-run.
    victim = max(range(SHARDS), key=lambda i: len(per_shard[i]))
    trace = shared / "traces" / f"shard-{victim}-of-{SHARDS}.jsonl"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not (trace.exists() and trace.read_text().strip()):
        time.sleep(0.05)
    os.killpg(procs[victim].pid, signal.SIGKILL)
    for i, p in enumerate(procs):
        _, err = p.communicate(timeout=300)
        if i != victim:
            assert p.returncode == 0, err.decode()[-2000:]
    before = trace.read_text().splitlines()
    assert before, "the victim wrote nothing before the kill"
    rerun = subprocess.run(cmd(victim), env=env, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    after = trace.read_text().splitlines()
    assert after[: len(before) - 1] == before[:-1], "rows written before the kill were changed"

    finals = finished_outcomes(shared)
    assert all(len(v) == 1 for v in finals.values()), "a contract was finished twice"
    reference = {o.contract.contract_id: o for o in load_outcomes(ref_dir)}
    union = {cid: outs[0] for cid, outs in finals.items()}
    assert set(union) == set(reference) == {c.contract_id for c in contracts}
    assert {cid: (o.terminal, o.success) for cid, o in union.items()} == {
        cid: (o.terminal, o.success) for cid, o in reference.items()
    }
    for i in range(SHARDS):  # each shard ran exactly its own contracts
        mine = {c.contract_id for c in per_shard[i]}
        path = shared / "traces" / f"shard-{i}-of-{SHARDS}.jsonl"
        ran = {r.contract.contract_id for _, r, _ in iter_rows(path) if r is not None}
        assert ran == mine
