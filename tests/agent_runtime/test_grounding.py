"""Heuristic middle: text-match grounding (exact > prefix > overlap), roles, fallbacks."""

from __future__ import annotations

import json

from agent_runtime.grounding import text_score
from agent_runtime.middle.base import MiddleInput, MiddleOutput, MiddlePolicy
from agent_runtime.middle.heuristic import HeuristicMiddle
from contracts import ActionAST, TopState
from contracts.command import parse_command
from tests.helpers.observations import el, obs
from tests.helpers.protocols import assert_implements


def propose(command: str, observation) -> tuple[dict, float | None]:
    out = HeuristicMiddle().propose(
        MiddleInput(top=TopState(intention="t", command=command), observation=observation)
    )
    ActionAST.model_validate_json(out.raw)  # always grammar-valid
    return json.loads(out.raw), out.confidence


def test_protocol() -> None:
    mid = HeuristicMiddle()
    assert_implements(mid, MiddlePolicy)
    out = mid.propose(
        MiddleInput(top=TopState(intention="t", command='click "ok"'), observation=obs())
    )
    assert isinstance(out, MiddleOutput)


def test_score_order() -> None:
    assert text_score("ok", "ok") == 1.0
    assert text_score("ok", "Ok") == 0.95
    assert text_score("Section", "Section #12") == 0.8
    assert text_score("submit", "Please submit now") == 0.7
    assert 0 < text_score("blue shirt large", "large red shirt") < 0.7
    assert text_score("abc", "xyz") == 0.0


def test_exact_beats_case_and_prefix() -> None:
    o = obs(el(0, "button", "okay"), el(1, "button", "Ok"), el(2, "button", "ok"))
    a, conf = propose('click "ok" button', o)
    assert a["action"] == {"type": "click", "target": 2} and conf == 1.0
    a, conf = propose('click "OK" button', o)
    assert a["action"]["target"] == 1 and conf == 0.95  # case-insensitive exact, first in order


def test_prefix_and_overlap() -> None:
    o = obs(el(0, "button", "Cancel"), el(1, "tab", "Section #7"))
    a, conf = propose('click "Section"', o)
    assert a["action"]["target"] == 1 and conf == 0.8
    o2 = obs(el(0, "link", "red shirt large"), el(1, "link", "home"))
    a, conf = propose('click "large shirt"', o2)
    assert a["action"]["target"] == 0 and 0 < conf < 0.7


def test_role_aware_type_and_check() -> None:
    o = obs(
        el(0, "button", "Username"),
        el(1, "textbox", "Username", input_type="text"),
        el(2, "checkbox", "Username", input_type="checkbox", checked=False),
    )
    a, _ = propose('type "bob" into "Username" textbox', o)
    assert a["action"] == {"type": "type", "target": 1, "text": "bob", "submit": False}
    a, _ = propose('check "Username"', o)
    assert a["action"] == {"type": "click", "target": 2}
    a, _ = propose('click "Username"', o)
    assert a["action"]["target"] == 0  # click prefers buttons


def test_check_already_checked_waits() -> None:
    o = obs(el(0, "checkbox", "abc", input_type="checkbox", checked=True))
    a, _ = propose('check "abc"', o)
    assert a["action"]["type"] == "wait"
    a, _ = propose('uncheck "abc"', o)
    assert a["action"] == {"type": "click", "target": 0}


def test_nth_and_role_only() -> None:
    o = obs(
        el(0, "textbox", "", input_type="text"),
        el(1, "textbox", "", input_type="password"),
        el(2, "textbox", "", tag="textarea"),
    )
    assert propose("focus textbox #2", o)[0]["action"]["target"] == 1
    assert propose("click textarea", o)[0]["action"]["target"] == 2
    assert propose('type "x" into "password" textbox', o)[0]["action"]["target"] == 1


def test_select_and_submit() -> None:
    o = obs(
        el(0, "combobox", "", value="Peru"), el(1, "button", "Cancel"), el(2, "button", "Submit")
    )
    a, _ = propose('select "Chile" in combobox', o)
    assert a["action"] == {"type": "type", "target": 0, "text": "Chile", "submit": False}
    assert propose("submit", o)[0]["action"] == {"type": "click", "target": 2}


def test_no_match_scrolls_with_fallback() -> None:
    o = obs(el(0, "button", "Cancel"))
    a, conf = propose('click "Nonexistent" link', o)
    assert a["action"]["type"] == "scroll" and a["fallback"]["type"] == "wait" and conf == 0.0
    a, conf = propose('type "x" into textbox', o)
    assert a["action"]["type"] == "scroll" and conf == 0.0


def test_free_text_command_is_a_click_target() -> None:
    o = obs(el(0, "link", "Pricing"), el(1, "link", "Home"))
    a, _ = propose("Pricing", o)
    assert a["action"] == {"type": "click", "target": 0}


def test_grammar_round_trip() -> None:
    for s in [
        'click "OK" button',
        "click textbox #2",
        'type "a \\"b\\"" into "User" textbox #1',
        'select "Canada" in combobox',
        'select "x"',
        'check "ÖK"',
        "focus textbox #3",
        "submit",
        "scroll down",
        "wait",
        'click "Tab #2" tab',
    ]:
        cmd = parse_command(s)
        assert cmd is not None, s
        assert cmd.render() == s
    for bad in ["", "dance", "click", 'type "x"', "scroll left", "click foo", 'click "x" banana']:
        assert parse_command(bad) is None, bad
