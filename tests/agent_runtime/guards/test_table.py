"""Each listed repair and each rejection reason of the guard compiler (WebRider Table 45)."""
# ruff: noqa: E501  (raw model outputs are kept on one line, as a model emits them)

from __future__ import annotations

import json

import pytest

from agent_runtime.guards import compile_action
from contracts.actions import ActionAST
from contracts.guard_labels import GuardStatus, RejectReason, RepairKind

W = '{"action": %s, "fallback": {"type": "back"}}'

REPAIRS = [
    # (raw, expected repair, expected action dump)
    (
        '```json\n{"action": {"type": "click", "target": 2}, "fallback": {"type": "back"}}\n```',
        RepairKind.CODE_FENCE,
        {"type": "click", "target": 2},
    ),
    (
        '```\n{"action": {"type": "click", "target": 2}, "fallback": {"type": "back"}}',
        RepairKind.CODE_FENCE,
        {"type": "click", "target": 2},
    ),
    (
        'I will click the link. {"action": {"type": "click", "target": 3}, "fallback": {"type": "back"}}'
        " Done.",
        RepairKind.SURROUNDING_PROSE,
        {"type": "click", "target": 3},
    ),
    (
        W % '{"type": "google_search", "query": "usb hub"}',
        RepairKind.ALIAS_TYPE,
        {"type": "search", "query": "usb hub"},
    ),
    (W % '{"type": "go_back"}', RepairKind.ALIAS_TYPE, {"type": "back", "reason": "history"}),
    (W % '{"type": "Click", "target": 2}', RepairKind.ALIAS_TYPE, {"type": "click", "target": 2}),
    (W % '{"type": "tap", "target": 2}', RepairKind.ALIAS_TYPE, {"type": "click", "target": 2}),
    (
        W % '{"type": "fill", "target": 0, "text": "hub"}',
        RepairKind.ALIAS_TYPE,
        {"type": "type", "target": 0, "text": "hub", "submit": False},
    ),
    (
        W % '{"type": "scroll_up"}',
        RepairKind.ALIAS_TYPE,
        {"type": "scroll", "target": "window", "direction": "up"},
    ),
    (W % '{"type": "click", "element": 2}', RepairKind.ALIAS_FIELD, {"type": "click", "target": 2}),
    (
        W % '{"type": "type", "id": 0, "value": "hub"}',
        RepairKind.ALIAS_FIELD,
        {"type": "type", "target": 0, "text": "hub", "submit": False},
    ),
    (
        W % '{"type": "search", "q": "hub"}',
        RepairKind.ALIAS_FIELD,
        {"type": "search", "query": "hub"},
    ),
    ('{"action": "click", "target": 2}', RepairKind.ALIAS_FIELD, {"type": "click", "target": 2}),
    (
        W % '{"type": "click", "target": "12"}',
        RepairKind.LABEL_STRING,
        {"type": "click", "target": 12},
    ),
    (
        W % '{"type": "click", "target": "[12]"}',
        RepairKind.LABEL_STRING,
        {"type": "click", "target": 12},
    ),
    ('{"type": "click", "target": 2}', RepairKind.BARE_ACTION, {"type": "click", "target": 2}),
    (
        '{"action": {"type": "click", "target": 2}}',
        RepairKind.MISSING_FALLBACK,
        {"type": "click", "target": 2},
    ),
    (
        '{"action": {"type": "click", "target": 2}, "fallback": {"type": "click", "target": 3}}',
        RepairKind.INVALID_FALLBACK,
        {"type": "click", "target": 2},
    ),
]


@pytest.mark.parametrize(("raw", "repair", "expected"), REPAIRS)
def test_each_listed_repair(obs, raw, repair, expected):
    res = compile_action(raw, obs)
    assert res.report.status is GuardStatus.REPAIRED, res.report.labels()
    assert repair in res.report.repairs
    assert res.report.rejection is None and not res.report.fallback_used
    assert res.action is not None
    assert res.action.action.model_dump() == expected
    ActionAST.model_validate(res.action.model_dump())


def test_clean_output_is_parsed_with_its_own_fallback(obs):
    raw = W % '{"type": "click", "target": 2}'
    res = compile_action(raw, obs)
    assert res.report.labels() == ["parsed"]
    assert res.action.fallback.model_dump() == {"type": "back", "reason": "history"}


def test_synthesized_fallbacks_follow_figure_9(obs):
    search = compile_action('{"action": {"type": "search", "query": "hub"}}', obs)
    assert search.action.fallback.model_dump() == {"type": "back", "reason": "history"}
    maps = compile_action(
        '{"action": {"type": "maps", "query": "repair shop"}}', obs, geographic=True
    )
    assert maps.action.action.type == "maps"
    assert maps.action.fallback.model_dump() == {"type": "search", "query": "repair shop"}
    click = compile_action('{"action": {"type": "click", "target": 2}}', obs)
    assert click.action.fallback.model_dump() == {
        "type": "scroll",
        "target": "window",
        "direction": "down",
    }


REJECTIONS = [
    ("not json at all", RejectReason.UNPARSEABLE),
    ("", RejectReason.UNPARSEABLE),
    ('{"type": "click", "target": 2} or {"type": "click", "target": 3}', RejectReason.UNPARSEABLE),
    ("[1, 2, 3]", RejectReason.NOT_AN_OBJECT),
    ('"click 12"', RejectReason.NOT_AN_OBJECT),
    (W % '{"type": "hover", "target": 2}', RejectReason.UNKNOWN_ACTION),
    (W % '{"target": 2}', RejectReason.UNKNOWN_ACTION),
    (W % '{"type": "answer", "text": "$39.99"}', RejectReason.TERMINAL_LABEL),
    ('{"action": "stop"}', RejectReason.TERMINAL_LABEL),
    (W % '{"type": "finish"}', RejectReason.TERMINAL_LABEL),
    ('{"answer": "The hub costs $39.99"}', RejectReason.TERMINAL_LABEL),
    (W % '{"type": "click"}', RejectReason.MISSING_TARGET),
    (W % '{"type": "click", "target": null}', RejectReason.MISSING_TARGET),
    (W % '{"type": "type", "text": "hub"}', RejectReason.MISSING_TARGET),
    (W % '{"type": "click", "target": 99}', RejectReason.INVISIBLE_TARGET),
    (W % '{"type": "click", "target": "[7]"}', RejectReason.INVISIBLE_TARGET),
    (W % '{"type": "click", "target": "the blue button"}', RejectReason.PROSE_LABEL),
    (W % '{"type": "click", "target": "button 12"}', RejectReason.PROSE_LABEL),
    (W % '{"type": "type", "target": 0, "text": "   "}', RejectReason.EMPTY_TEXT),
    (W % '{"type": "type", "target": 0}', RejectReason.EMPTY_TEXT),
    (W % '{"type": "search", "query": ""}', RejectReason.EMPTY_QUERY),
    (
        W % '{"type": "google_maps", "query": "pizza", "location": "Irvine"}',
        RejectReason.MAPS_NOT_GEOGRAPHIC,
    ),
    (W % '{"type": "click", "target": 2, "force": true}', RejectReason.INVALID_FIELD),
    (W % '{"type": "click", "target": true}', RejectReason.INVALID_FIELD),
    (W % '{"type": "click", "target": -1}', RejectReason.INVALID_FIELD),
    (W % '{"type": "scroll", "direction": "left"}', RejectReason.INVALID_FIELD),
    (W % '{"type": "wait", "seconds": 60}', RejectReason.INVALID_FIELD),
    (W % '{"type": "back", "reason": "because"}', RejectReason.INVALID_FIELD),
    (W % '{"type": "type", "target": 0, "text": 94110}', RejectReason.INVALID_FIELD),
    (W % '{"type": "scroll_down", "direction": "up"}', RejectReason.INVALID_FIELD),
    (W % '{"type": "click", "target": 2, "element": 3}', RejectReason.INVALID_FIELD),
    ('{"action": {"type": "click", "target": 2}, "thought": "x"}', RejectReason.INVALID_FIELD),
    ('{"action": 5}', RejectReason.INVALID_FIELD),
]


@pytest.mark.parametrize(("raw", "reason"), REJECTIONS)
def test_each_rejection_reason_runs_a_fallback(obs, raw, reason):
    res = compile_action(raw, obs)
    assert res.report.status is GuardStatus.REJECTED
    assert res.report.rejection is reason, res.report.detail
    assert f"rejected:{reason.value}" in res.report.labels()
    assert res.report.fallback_used
    assert res.action is not None and res.action.action.type in {
        "scroll",
        "search",
        "maps",
        "back",
        "wait",
    }
    ActionAST.model_validate(res.action.model_dump())


def test_every_rejection_reason_of_the_grammar_is_covered():
    covered = {r for _, r in REJECTIONS}
    # Loops, access, internal errors and the tightened content checks (test_tightened.py)
    # have their own tests; everything else is here.
    rest = set(RejectReason) - covered
    assert rest == {
        RejectReason.SCROLL_LOOP,
        RejectReason.REPEATED_STATE,
        RejectReason.EXTERNAL_ACCESS,
        RejectReason.INTERNAL_ERROR,
        RejectReason.DUPLICATE_KEY,
        RejectReason.UNDECODABLE_TEXT,
        RejectReason.ACCESS_CIRCUMVENTION,
        RejectReason.SENSITIVE_INPUT,
    }


def test_rejected_primary_runs_the_models_valid_fallback(obs):
    raw = '{"action": {"type": "click", "target": 99}, "fallback": {"type": "google_search", "query": "usb hub"}}'
    res = compile_action(raw, obs)
    assert res.report.rejection is RejectReason.INVISIBLE_TARGET
    assert res.action.action.model_dump() == {"type": "search", "query": "usb hub"}
    assert res.action.fallback.model_dump() == {"type": "back", "reason": "history"}


def test_rejected_maps_falls_back_to_search_with_the_same_query(obs):
    res = compile_action('{"type": "google_maps", "query": "bike repair near Irvine"}', obs)
    assert res.report.rejection is RejectReason.MAPS_NOT_GEOGRAPHIC
    assert res.action.action.model_dump() == {"type": "search", "query": "bike repair near Irvine"}


def test_empty_query_falls_back_to_back_and_terminal_to_wait(obs):
    res = compile_action(
        W.replace('"back"', '"wait", "seconds": 99') % '{"type": "search", "query": " "}', obs
    )
    assert res.report.rejection is RejectReason.EMPTY_QUERY
    assert RepairKind.INVALID_FALLBACK in res.report.repairs
    assert res.action.action.model_dump() == {"type": "back", "reason": "history"}
    term = compile_action('{"action": {"type": "answer", "text": "x"}}', obs)
    assert term.action.action.type == "wait"


def test_target_absent_on_an_empty_page_waits_for_loading(obs):
    empty = obs.model_copy(update={"labels": []})
    res = compile_action(
        W.replace('"back"', '"click", "target": 1') % '{"type": "click", "target": 2}', empty
    )
    assert res.report.rejection is RejectReason.INVISIBLE_TARGET
    assert res.action.action.model_dump() == {"type": "wait", "reason": "loading", "seconds": 1.0}


def test_non_string_raw_and_internal_errors_never_raise(obs):
    res = compile_action(None, obs)  # type: ignore[arg-type]
    assert res.report.rejection is RejectReason.NOT_AN_OBJECT and res.action is not None
    broken = compile_action('{"type": "click", "target": 2}', "not an observation")  # type: ignore[arg-type]
    assert broken.report.rejection is RejectReason.INTERNAL_ERROR
    assert broken.action is not None and broken.report.fallback_used


def test_to_line_shape(obs):
    line = compile_action('{"type": "click", "target": "12"}', obs).to_line()
    assert set(line) == {"action", "fallback", "labels", "rejection", "detail"}
    json.dumps(line)
    assert line["labels"][0] == "repaired"
