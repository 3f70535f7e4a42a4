"""Contract models: JSON Schema export, round trips, clarification, audit, bad contract files."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from contracts import (
    PERSONA_AXES,
    PERSONA_LIBRARY,
    ActionAST,
    IntentContract,
    Observation,
    PersonaPolicy,
    StepRow,
    action_ast_decoding_schema,
    load_contracts,
)
from contracts.audit import AuditFailure, audit_contract
from contracts.intent import ContractFileError, HardConstraint
from contracts.schemas import all_schemas, export_schemas
from contracts.step_row import TRACE_ROW_ADAPTER, ContractRef, RolloutOutcome
from contracts.top_state import TopState
from envs.miniwob.contracts import miniwob_contract, parse_seeds


def test_every_schema_is_versioned_and_exported(tmp_path):
    schemas = all_schemas()
    for name in ("intent_contract", "action_ast", "step_row", "rollout_outcome", "observation"):
        assert schemas[name]["x-schema-version"] == "1.0"
        assert name in schemas[name]["$id"]
    written = export_schemas(tmp_path)
    assert {p.name for p in written} >= {"action_ast.schema.json", "step_row.schema.json"}
    assert json.loads((tmp_path / "action_ast.schema.json").read_text())["title"] == "ActionAST"


def test_decoding_schema_has_exactly_the_seven_actions_and_no_terminal():
    schema = action_ast_decoding_schema()
    kinds = [alt["properties"]["type"]["const"] for alt in schema["properties"]["action"]["anyOf"]]
    assert kinds == ["click", "type", "scroll", "search", "maps", "back", "wait"]
    fallback = [a["properties"]["type"]["const"] for a in schema["properties"]["fallback"]["anyOf"]]
    assert "click" not in fallback and "type" not in fallback
    assert "$ref" not in json.dumps(schema)
    assert set(schema["required"]) == {"action", "fallback"}


@pytest.mark.parametrize(
    "doc",
    [
        {
            "action": {"type": "click", "target": 3},
            "fallback": {"type": "scroll", "target": "window", "direction": "down"},
        },
        {
            "action": {"type": "type", "target": 1, "text": "hi", "submit": True},
            "fallback": {"type": "wait", "reason": "loading", "seconds": 1.0},
        },
        {
            "action": {"type": "maps", "query": "cafe", "location": "Oslo"},
            "fallback": {"type": "search", "query": "cafe Oslo"},
        },
        {
            "action": {"type": "back", "reason": "dead_end"},
            "fallback": {"type": "wait", "reason": "stale_state", "seconds": 0.5},
        },
    ],
)
def test_action_ast_round_trip(doc):
    ast = ActionAST.model_validate(doc)
    assert ActionAST.model_validate_json(ast.to_json()) == ast


@pytest.mark.parametrize(
    "doc",
    [
        {"action": {"type": "answer", "text": "42"}},
        {"action": {"type": "stop"}},
        {"action": {"type": "click"}},
        {"action": {"type": "type", "target": 1, "text": ""}},
        {"action": {"type": "click", "target": 1}, "fallback": {"type": "click", "target": 2}},
        {"action": {"type": "click", "target": 1, "extra": 1}},
    ],
)
def test_grammar_rejects_terminal_and_malformed(doc):
    with pytest.raises(ValidationError):
        ActionAST.model_validate(doc)


def test_persona_library_is_table_15():
    assert len(PERSONA_LIBRARY) == 15
    assert len(PERSONA_AXES) == 10
    for p in PERSONA_LIBRARY.values():
        assert p.criterion and set(p.axes) == set(PERSONA_AXES)
        assert p.controls(), f"{p.name} cannot change any route decision"
    with pytest.raises(ValidationError):
        PersonaPolicy(name="x", axes={"cost": 0.5}, criterion="c")


def test_contract_round_trip_and_clarify_records_why():
    c = miniwob_contract("click-button", 7)
    assert IntentContract.model_validate_json(c.model_dump_json()) == c
    c2 = c.clarify("soft_preferences", ["prefer the first match"], reason="user said so")
    assert c2.soft_preferences == ["prefer the first match"]
    assert c.soft_preferences == []  # the original is untouched
    assert c2.clarifications[-1].reason == "user said so"
    assert c2.sha256() != c.sha256()
    with pytest.raises(ValueError):
        c.clarify("clarifications", [], reason="no")


def test_audit_names_each_failure():
    good = miniwob_contract("click-button", 1)
    assert audit_contract(good) == []
    bad = good.model_copy(
        update={
            "request": "As a deal hunter, find the button",
            "evidence_obligations": [],
            "hard_constraints": [HardConstraint(id="h", text="cheap")],
            "persona": PersonaPolicy(
                name="flat", axes=dict.fromkeys(PERSONA_AXES, 0.5), criterion="none"
            ),
        }
    )
    assert set(audit_contract(bad)) == {
        AuditFailure.PERSONA_NAME_IN_REQUEST,
        AuditFailure.NO_EVIDENCE_OBLIGATIONS,
        AuditFailure.HARD_CONSTRAINT_NOT_INSPECTABLE,
        AuditFailure.POLICY_CANNOT_CHANGE_ROUTE,
    }


def test_contract_file_errors_name_file_line_and_field(tmp_path):
    good = miniwob_contract("click-button", 1).model_dump(mode="json")
    bad = dict(good, contract_id="x2")
    bad["env"] = {"kind": "ftp"}
    path = tmp_path / "contracts.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(bad) + "\n")
    with pytest.raises(ContractFileError, match=r"contracts\.jsonl:3: field 'env\.kind'"):
        load_contracts(path)
    path.write_text(json.dumps(good) + "\n{oops\n")
    with pytest.raises(ContractFileError, match=r":2: not valid JSON"):
        load_contracts(path)
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n")
    with pytest.raises(ContractFileError, match="duplicate"):
        load_contracts(path)


def test_step_and_outcome_rows_round_trip_through_one_adapter():
    ref = ContractRef(contract_id="c", base_task_id="b", sha256="0" * 64)
    step = StepRow(
        rollout_id="c@0",
        step_index=0,
        contract=ref,
        top=TopState(intention="click OK"),
        observation=Observation(url="http://127.0.0.1/x").with_state_hash(),
        action=ActionAST.model_validate({"action": {"type": "click", "target": 0}}),
    )
    out = RolloutOutcome(rollout_id="c@0", contract=ref, success=True, raw_reward=1.0)
    for row in (step, out):
        back = TRACE_ROW_ADAPTER.validate_json(row.model_dump_json())
        assert back == row


def test_parse_seeds():
    assert parse_seeds("100-103,7") == [7, 100, 101, 102, 103]
    with pytest.raises(ValueError):
        parse_seeds("9-3")
