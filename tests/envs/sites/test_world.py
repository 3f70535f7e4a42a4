"""Generated sites, base tasks, contracts, audit and split; bad data and contract files."""

from __future__ import annotations

import json

import pytest

from contracts.intent import ContractFileError, load_contracts
from envs.miniwob.contracts import write_contracts
from envs.sites.audit import audit_pairing, audit_world
from envs.sites.model import MODES, World
from envs.sites.pairing import split_of, world_contracts
from envs.sites.runtime import load_world
from envs.sites.world import generate_world
from envs.webapp import DataFileError, load_model_file, write_model_file

W = generate_world()
CONTRACTS = world_contracts(W)


def test_sizes_modes_and_pairing_counts() -> None:
    assert len(W.sites) >= 4 and len(W.tasks) >= 60 and len(CONTRACTS) >= 300
    assert {t.mode for t in W.tasks} == set(MODES)
    per_task: dict[str, int] = {}
    for c in CONTRACTS:
        per_task[c.base_task_id] = per_task.get(c.base_task_id, 0) + 1
    assert all(4 <= n <= 6 for n in per_task.values())


def test_generation_is_deterministic_and_seeded() -> None:
    generate_world.cache_clear()
    again = generate_world(W.seed)
    assert again.model_dump_json() == W.model_dump_json()
    other = generate_world(W.seed + 1)
    assert other.model_dump_json() != W.model_dump_json()


def test_audit_passes_every_task_and_pairing() -> None:
    report = audit_world(W, CONTRACTS)
    assert report["task_audit_pass"] == len(W.tasks) and not report["task_failures"]
    assert (
        report["pairing_audit_pass"] == len(CONTRACTS) and report["persona_names_in_requests"] == 0
    )


def test_pairing_audit_catches_a_dropped_constraint_and_a_pointless_policy() -> None:
    c = CONTRACTS[0]
    dropped = c.model_copy(update={"hard_constraints": c.hard_constraints[1:]})
    assert "base_hard_constraint_dropped" in audit_pairing(dropped, W)
    docs_lookup = next(x for x in CONTRACTS if x.base_task_id == "docs-02")
    from contracts.persona import PersonaPolicy

    local = docs_lookup.model_copy(update={"persona": PersonaPolicy.named("local_context_planner")})
    assert "policy_cannot_change_route" in audit_pairing(local, W)


def test_split_is_grouped_by_base_task() -> None:
    split = split_of(W)
    assert set(split.values()) == {"train", "dev", "test"}
    assert set(split) == {t.id for t in W.tasks}  # one split per base task, so siblings never cross
    test_tasks = [t for t, s in split.items() if s == "test"]
    assert len(test_tasks) == len(W.tasks) // 4


def test_gold_never_reaches_a_contract() -> None:
    text = "\n".join(c.model_dump_json() for c in CONTRACTS)
    for gold in W.gold.values():
        for value in gold.expected.values():
            if len(value) > 8:  # short values ("yes", "3.2") occur naturally in requests
                assert value not in text
    assert '"valid"' not in text and "access_blocked_items" not in text


def test_world_file_round_trips_and_bad_fields_are_named(tmp_path) -> None:
    path = write_model_file(tmp_path / "world.json", W)
    assert load_world(W.seed, path).model_dump() == W.model_dump()
    data = json.loads(path.read_text())
    data["sites"]["shop"]["items"][3]["id"] = "bad id"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(DataFileError, match=r"bad\.json: field 'sites\.shop\.items\[3\]\.id'"):
        load_model_file(bad, World)
    data = json.loads(path.read_text())
    data["sites"]["docs"]["items"][0]["category"] = "Toasters"
    bad.write_text(json.dumps(data))
    with pytest.raises(
        DataFileError, match=r"bad\.json: field 'sites\.docs'.*items\[0\]\.category"
    ):
        load_model_file(bad, World)
    with pytest.raises(DataFileError, match=r"seed"):
        load_world(W.seed + 5, path)


def test_bad_contract_file_names_line_and_field(tmp_path) -> None:
    path = tmp_path / "c.jsonl"
    write_contracts(CONTRACTS[:3], path)
    lines = path.read_text().splitlines()
    broken = json.loads(lines[1])
    broken["evidence_obligations"][0]["min_items"] = 0
    lines[1] = json.dumps(broken)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        ContractFileError, match=r"c\.jsonl:2: field 'evidence_obligations\[0\]\.min_items'"
    ):
        load_contracts(path)


def test_sites_cli_names_a_bad_data_file_and_generates_once(tmp_path) -> None:
    from typer.testing import CliRunner

    from pathwise.cli import app

    runner = CliRunner()
    bad = tmp_path / "world.json"
    bad.write_text('{"seed": 1, "sites": {}, "tasks": [{"id": 3}], "gold": {}}')
    r = runner.invoke(app, ["sites", "check", str(bad)])
    assert r.exit_code == 2 and "world.json: field 'tasks[0]" in r.output
    out = tmp_path / "gen"
    r = runner.invoke(app, ["sites", "generate", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "world.json").is_file() and (out / "contracts" / "test.jsonl").is_file()
    assert "pairing audit 307/307" in r.output
    r = runner.invoke(app, ["sites", "generate", "--out", str(out)])
    assert r.exit_code == 2 and "never overwritten" in r.output
