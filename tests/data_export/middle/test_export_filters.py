"""Appendix E filters: each reason counted, first reason wins, target is the post-guard AST."""

from __future__ import annotations

from datasets import load_from_disk

from agent_runtime.middle.prompt import MIDDLE_SYSTEM_PROMPT, render_middle_user_text
from contracts.guard_labels import RejectReason
from data_export.middle.filters import FILTER_REASONS, exclusion_reason, raw_action_type
from data_export.middle.records import build_record, middle_input
from tests.helpers.synthetic_traces import step_row, write_trace


def test_each_reason_counted_in_order(tmp_path, run_export):
    rows = [
        step_row("keep1"),
        step_row("keep2", confidence=None),  # no confidence: passes
        step_row("lc", confidence=0.2),
        step_row("lc+none", confidence=0.2, action=None),  # low confidence wins over no action
        step_row("none", action=None),
        step_row("none+term", action=None, decision="answer"),  # no action wins over subgoal
        step_row("ta", guard_rejection=RejectReason.TERMINAL_LABEL),
        step_row("ta-raw", raw='{"action": {"type": "answer", "text": "42"}}'),
        step_row("ta+ts", guard_rejection=RejectReason.TERMINAL_LABEL, decision="stop"),
        step_row("ts", decision="ask"),
        step_row("ts2", decision="block"),
    ]
    write_trace(tmp_path, rows)
    m, _ = run_export(tmp_path, eval_fraction=0.0)
    assert list(m["counts"]["filtered"]) == list(FILTER_REASONS)
    assert m["counts"]["filtered"] == {
        "low_confidence": 2,
        "no_action_type": 2,
        "terminal_action": 3,
        "terminal_subgoal": 2,
    }
    assert m["counts"]["step_rows"] == len(rows)
    assert m["counts"]["kept"] == 2
    assert m["counts"]["filtered_total"] + m["counts"]["kept"] == len(rows)


def test_threshold_is_configurable(tmp_path, run_export):
    write_trace(tmp_path, [step_row("a", confidence=0.6), step_row("b", confidence=0.8)])
    m, _ = run_export(tmp_path, min_confidence=0.7, eval_fraction=0.0)
    assert m["counts"]["filtered"]["low_confidence"] == 1
    assert m["min_confidence"] == 0.7
    assert exclusion_reason(step_row(confidence=0.69), 0.7) == "low_confidence"
    assert exclusion_reason(step_row(confidence=0.7), 0.7) is None


def test_raw_terminal_type_tolerates_fences():
    assert raw_action_type('```json\n{"action": {"type": "Stop"}}\n```') == "stop"
    assert raw_action_type('{"type": "click", "target": 3}') == "click"
    assert raw_action_type("stop now") is None
    # prose mentioning "stop" but proposing a click is not terminal
    row = step_row(raw='I will not stop: {"action": {"type": "click", "target": 1}}')
    assert exclusion_reason(row) is None


def test_record_uses_runtime_prompt_and_post_guard_target(tmp_path, run_export):
    row = step_row("t", action="type", raw='```json\n{"type": "type", "target": "2"}```')
    rec = build_record(row, "sha")
    system, user, assistant = rec["messages"]
    assert system["content"] == [{"type": "text", "text": MIDDLE_SYSTEM_PROMPT}]
    assert user["content"][0] == {"type": "image"}
    assert user["content"][1]["text"] == render_middle_user_text(middle_input(row))
    assert assistant["content"][0]["text"] == row.action.to_json() != row.middle_raw
    text = user["content"][1]["text"]
    assert "Persona: explicit_control (" in text  # criterion looked up as the runner serves it
    assert "Protected constraints: under $50; ships to CA" in text

    write_trace(tmp_path, [row])
    _, out = run_export(tmp_path, eval_fraction=0.0)
    got = load_from_disk(str(out))["train"][0]
    assert got["messages"][2]["content"][0]["text"] == row.action.to_json()
    assert got["messages"][1]["content"][1]["text"] == user["content"][1]["text"]
    assert (got["base_task_id"], got["rollout_id"], got["step_index"]) == ("t", "r1", 0)
    assert got["contract_id"] == "t::explicit_control"
    assert got["command_verb"] == "open"  # the synthetic row's command: "open item for t"
