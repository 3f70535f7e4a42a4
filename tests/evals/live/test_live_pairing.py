"""Live insertion pairing and Table 51 denominators on crafted outcome rows (no browser)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from agent_runtime.runner.traces import TraceWriter
from contracts import (
    AccessSignal,
    ContractRef,
    Gates,
    Observation,
    RolloutOutcome,
    StepRow,
    TokenUsage,
    TopState,
)
from envs.miniwob.contracts import miniwob_contracts, write_contracts
from evals import stats
from evals.live import pairing
from evals.live.run import score_runs
from pathwise.cli import app

# (candidate state, reference state) per contract; S success, F fail, A access block,
# R runtime failure, T timeout (a runtime failure per Table 16).
SPEC = ["SS", "SF", "SF", "FS", "AS", "RF", "SA", "FF", "TS", "SR"]
TASKS = ["click-test", "enter-text"]


def contract_ids():
    return [f"miniwob/{t}/{s}" for t in TASKS for s in range(5)]


def outcome(
    cid: str,
    state: str,
    *,
    policy: str = "p",
    attempt: int = 0,
    seed=None,
    env: str = "miniwob",
    gates: Gates | None = None,
) -> RolloutOutcome:
    _, task, s = cid.split("/")
    terminal = {
        "S": "env_done",
        "F": "step_cap",
        "A": "access_failure",
        "R": "runtime_failure",
        "T": "timeout",
    }[state]
    return RolloutOutcome(
        rollout_id=f"{policy}-{cid}-{attempt}",
        contract=ContractRef(contract_id=cid, base_task_id=cid, sha256="0" * 64),
        env=env,
        task=task,
        seed=int(s) if seed is None else seed,
        policy=policy,
        attempt=attempt,
        success=state == "S",
        raw_reward=1.0 if state == "S" else (-1.0 if state == "F" else None),
        terminal=terminal,
        access_failure=AccessSignal.CAPTCHA if state == "A" else None,
        runtime_failure="Crash: boom" if state == "R" else None,
        gates=gates,
    )


def crafted():
    ids = contract_ids()
    cand = [outcome(cid, st[0], policy="cand") for cid, st in zip(ids, SPEC, strict=True)]
    ref = [outcome(cid, st[1], policy="ref") for cid, st in zip(ids, SPEC, strict=True)]
    return ids, cand, ref


def test_episode_classification():
    ids = contract_ids()
    e = pairing.episode_of(outcome(ids[0], "A"))
    assert (e.success, e.access_blocked, e.runtime_failure) == (False, True, False)
    e = pairing.episode_of(outcome(ids[0], "T"))
    assert (e.success, e.access_blocked, e.runtime_failure) == (False, False, True)
    e = pairing.episode_of(outcome(ids[0], "S"))
    assert (e.success, e.success_source) == (True, "raw_reward")
    # Gated contracts outside MiniWoB: success is CGS, the conjunction of the gates.
    partial = Gates(terminal=True, hard=True, evidence=False, answer=True, blocker=True)
    e = pairing.episode_of(outcome(ids[0], "S", env="local", gates=partial))
    assert (e.success, e.success_source) == (False, "cgs")
    full = Gates(terminal=True, hard=True, evidence=True, answer=True, blocker=True)
    e = pairing.episode_of(outcome(ids[0], "F", env="local", gates=full))
    assert e.success is True


def test_denominators_and_paired_tables():
    ids, cand, ref = crafted()
    res = pairing.compare(pairing.pair_outcomes(cand, ref, ids), n_boot=500, seed=1)
    c, r = res["candidate"], res["reference"]
    assert (c["episodes"], c["access_blocked"], c["runtime_failures"]) == (10, 1, 2)
    assert (c["all"]["n"], c["all"]["successes"]) == (10, 5)
    assert (c["unblocked"]["n"], c["unblocked"]["successes"]) == (9, 5)
    assert (c["clean"]["n"], c["clean"]["successes"]) == (7, 5)
    assert c["clean"]["rate"] == pytest.approx(5 / 7)
    assert (r["access_blocked"], r["runtime_failures"]) == (1, 1)
    assert (r["all"]["successes"], r["unblocked"]["n"], r["clean"]["n"]) == (4, 9, 8)
    assert r["clean"]["rate"] == pytest.approx(0.5)

    p = res["paired"]
    assert p["all"]["table"] == {"both": 1, "candidate_only": 4, "reference_only": 3, "neither": 2}
    assert p["all"]["mcnemar_p"] == pytest.approx(1.0)
    assert p["unblocked"]["n"] == 8
    assert p["unblocked"]["table"] == {
        "both": 1,
        "candidate_only": 3,
        "reference_only": 2,
        "neither": 2,
    }
    assert p["clean"]["n"] == 5
    assert p["clean"]["table"] == {
        "both": 1,
        "candidate_only": 2,
        "reference_only": 1,
        "neither": 1,
    }
    assert p["clean"]["mcnemar_p"] == pytest.approx(stats.mcnemar_exact(2, 1))
    b = p["all"]["bootstrap"]
    assert b["difference"]["estimate"] == pytest.approx(0.1)
    assert b["difference"]["ci_low"] <= 0.1 <= b["difference"]["ci_high"]

    pt = res["per_task"]
    assert pt["click-test"] == {
        "n": 5,
        "candidate_successes": 3,
        "reference_successes": 3,
        "candidate_access": 1,
        "reference_access": 0,
        "candidate_runtime": 0,
        "reference_runtime": 0,
        "candidate_rate": 0.6,
        "reference_rate": 0.6,
    }
    assert pt["enter-text"]["candidate_runtime"] == 2
    assert pt["enter-text"]["reference_access"] == 1


def test_pairing_checks_tasks_seeds_and_reports_unpaired():
    ids, cand, ref = crafted()
    paired = pairing.pair_outcomes(cand[:8], ref[2:], ids)
    assert [p.contract_id for p in paired.pairs] == ids[2:8]
    assert paired.only_candidate == sorted(ids[:2]) and paired.only_reference == sorted(ids[8:])
    bad = [*ref[:-1], outcome(ids[-1], "S", policy="ref", seed=99)]
    with pytest.raises(pairing.PairingError, match="same tasks and seeds"):
        pairing.pair_outcomes(cand, bad, ids)
    # contracts outside the contract file are ignored, not paired
    paired = pairing.pair_outcomes(cand, ref, ids[:3])
    assert len(paired.pairs) == 3 and paired.only_candidate == []


def write_run(run_dir, policy, outcomes, usage=None):
    (run_dir / "traces").mkdir(parents=True)
    (run_dir / "run.json").write_text(json.dumps({"policy": policy}))
    with TraceWriter(run_dir / "traces" / "shard-0-of-1.jsonl") as w:
        for o in outcomes:
            if usage is not None:
                w.write(
                    StepRow(
                        rollout_id=o.rollout_id,
                        step_index=0,
                        contract=o.contract,
                        top=TopState(intention="do it"),
                        observation=Observation(url="http://x"),
                        middle_usage=TokenUsage(**usage),
                    )
                )
            w.write(o)


def test_score_runs_from_folders_uses_last_attempt_and_counts_tokens(tmp_path):
    ids, cand, ref = crafted()
    # an earlier crashed attempt of contract 0 is superseded by the final success
    cand = [outcome(ids[0], "R", policy="crashed"), *cand]
    write_run(
        tmp_path / "cand",
        "rule-top+endpoint-middle(student)",
        cand,
        {"prompt_tokens": 100, "completion_tokens": 7},
    )
    write_run(tmp_path / "ref", "teacher", ref)
    res = score_runs(ids, tmp_path / "cand", tmp_path / "ref", n_boot=200)
    assert res["paired_contracts"] == 10 and res["candidate"]["all"]["successes"] == 5
    assert res["names"] == {
        "candidate": "rule-top+endpoint-middle(student)",
        "reference": "teacher",
    }
    tok = res["tokens"]["candidate"]
    assert tok["episodes"] == 11 and tok["prompt_tokens"] == 1100
    assert tok["completion_tokens"] == 77
    assert res["tokens"]["reference"]["steps"] == 0


def test_live_cli_scores_an_existing_candidate_run(tmp_path):
    _ids, cand, ref = crafted()
    contracts = tmp_path / "contracts.jsonl"
    write_contracts(miniwob_contracts(TASKS, range(5)), contracts)
    write_run(tmp_path / "cand", "rule-top+endpoint-middle(student)", cand)
    write_run(tmp_path / "ref", "teacher", ref)
    out = tmp_path / "live"
    args = [
        "eval",
        "live",
        "--contracts",
        str(contracts),
        "--reference",
        str(tmp_path / "ref"),
        "--candidate",
        str(tmp_path / "cand"),
        "--out",
        str(out),
        "--n-boot",
        "300",
    ]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    res = json.loads((out / "results.json").read_text())
    assert res["contracts"] == 10 and res["missing_from_pairing"] == []
    assert res["candidate"]["all"]["rate"] == pytest.approx(0.5)
    assert res["reference"]["unblocked"]["rate"] == pytest.approx(4 / 9)
    report = (out / "report.md").read_text()
    assert "| all | 10 |" in report and "| clean | 5 |" in report
    assert "| click-test | 5 | 60.0% | 60.0% | 1/0 | 0/0 |" in report
    assert (out / "per_task_success.png").exists()
    # a second call never overwrites the report
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 2 and "refusing to overwrite" in r.output


def test_live_cli_rejects_a_reference_on_other_contracts(tmp_path):
    contracts = tmp_path / "contracts.jsonl"
    write_contracts(miniwob_contracts(["click-button"], range(2)), contracts)
    _, _cand, ref = crafted()
    write_run(tmp_path / "ref", "teacher", ref)
    r = CliRunner().invoke(
        app,
        [
            "eval",
            "live",
            "--contracts",
            str(contracts),
            "--reference",
            str(tmp_path / "ref"),
            "--out",
            str(tmp_path / "o"),
            "--endpoint",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
        ],
    )
    assert r.exit_code == 2 and "shares no contract id" in r.output


def test_live_endpoint_preflight_rejects_an_unserved_model(fake_openai):
    from serving.endpoint import EndpointSpec

    assert EndpointSpec(url=fake_openai.url, model="student").check() == ["student"]
    with pytest.raises(ValueError, match="does not serve model 'other'"):
        EndpointSpec(url=fake_openai.url, model="other").check()
