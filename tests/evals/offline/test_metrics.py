"""Offline metrics (WebRider Appendix E) on crafted predictions with hand-computed values."""

from __future__ import annotations

import json

import pytest

from evals.offline import metrics

FB = {"type": "scroll", "target": "window", "direction": "down"}


def ast(action: dict, fallback: dict | None = FB) -> str:
    obj: dict = {"action": action}
    if fallback is not None:
        obj["fallback"] = fallback
    return json.dumps(obj)


CLICK3 = ast({"type": "click", "target": 3})
TYPE5 = ast({"type": "type", "target": 5, "text": "hello", "submit": False})
BACK = ast(
    {"type": "back", "reason": "history"}, {"type": "wait", "reason": "loading", "seconds": 1.0}
)
WAIT = ast({"type": "wait", "reason": "loading", "seconds": 1.0})
SCROLL_WIN = ast({"type": "scroll", "target": "window", "direction": "down"})


def test_exact_prediction_is_valid_and_matches():
    s = metrics.score_example(CLICK3, CLICK3)
    assert (s.ast_valid, s.action_match, s.target_match) == (True, True, True)
    assert (s.target_type, s.target_label, s.predicted_label) == ("click", "3", "3")


def test_aliased_type_and_label_string_normalize_through_guard_tables():
    raw = json.dumps(
        {"action": {"type": "Click-Element", "target": "[3]"}, "fallback": {"type": "wait"}}
    )
    s = metrics.score_example(raw, CLICK3)
    assert s.predicted_type == "click"
    assert (s.ast_valid, s.action_match, s.target_match) == (True, True, True)
    # type key alias and the go_back alias
    raw = json.dumps({"action": {"action_type": "go_back"}, "fallback": {"type": "wait"}})
    s = metrics.score_example(raw, BACK)
    assert (s.predicted_type, s.ast_valid, s.action_match, s.target_match) == (
        "back",
        True,
        True,
        True,
    )


def test_missing_fallback_is_invalid_but_type_still_compared():
    s = metrics.score_example(json.dumps({"action": {"type": "click", "target": 4}}), CLICK3)
    assert s.ast_valid is False and s.invalid_reason == "no_fallback"
    assert s.action_match is True
    assert s.target_match is False  # label 4 vs 3
    # a fallback that is not an object does not count
    raw = json.dumps({"action": {"type": "click", "target": 3}, "fallback": "scroll"})
    assert metrics.ast_validity(raw) is False


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (
            json.dumps({"action": {"type": "answer", "text": "42"}, "fallback": FB}),
            "terminal_action",
        ),
        (json.dumps({"action": {"type": "teleport"}, "fallback": FB}), "unknown_action_type"),
        (json.dumps({"action": {"target": 3}, "fallback": FB}), "no_action_type"),
        ("click 3", "unparseable"),
        ("[" + CLICK3 + "]", "unparseable"),  # JSON, but not an object
        ("```json\n" + CLICK3 + "\n```", "unparseable"),  # strict: no fence repair
        ("", "unparseable"),
    ],
)
def test_invalid_outputs_never_match(raw, reason):
    s = metrics.score_example(raw, CLICK3)
    assert s.ast_valid is False
    assert s.invalid_reason == reason
    assert s.predicted_type is None and s.predicted_label is None
    assert s.action_match is False and s.target_match is False


def test_targetless_actions_use_the_empty_label():
    assert metrics.parse_target(BACK) == ("back", "")
    assert metrics.parse_target(WAIT) == ("wait", "")
    assert metrics.parse_target(SCROLL_WIN) == ("scroll", "")
    assert metrics.parse_target(ast({"type": "scroll", "target": 7, "direction": "up"})) == (
        "scroll",
        "7",
    )
    assert metrics.parse_target(ast({"type": "search", "query": "x"})) == ("search", "")
    # a stray target on a target-less action is ignored: its label is still empty
    raw = json.dumps({"action": {"type": "wait", "target": 9}, "fallback": FB})
    assert metrics.parse_output(raw).label == ""
    # search predicted for a wait target: types differ, the empty labels are equal
    s = metrics.score_example(ast({"type": "search", "query": "x"}), WAIT)
    assert (s.action_match, s.target_match) == (False, True)
    # click without a target against a target-less back: label "" equals "", type differs
    s = metrics.score_example(ast({"type": "click"}), BACK)
    assert (s.ast_valid, s.action_match, s.target_match) == (True, False, True)


def test_type_target_must_match_label_not_text():
    same_label = ast({"type": "type", "target": 5, "text": "other", "submit": True})
    s = metrics.score_example(same_label, TYPE5)
    assert (s.action_match, s.target_match) == (True, True)
    prose = ast({"type": "type", "target": "the name field", "text": "hello"})
    s = metrics.score_example(prose, TYPE5)
    assert (s.ast_valid, s.action_match, s.target_match) == (True, True, False)


def test_bad_target_is_an_error():
    with pytest.raises(ValueError):
        metrics.parse_target(json.dumps({"action": {"type": "answer"}}))


def crafted() -> list[metrics.ExampleScore]:
    cases = [
        (CLICK3, CLICK3),  # valid, action, target
        (ast({"type": "click", "target": 4}), CLICK3),  # valid, action
        (json.dumps({"action": {"type": "click", "target": 3}}), CLICK3),  # action+target
        ("oops", TYPE5),  # invalid
        (ast({"type": "click", "target": 5}), TYPE5),  # valid, target
        (ast({"type": "go_back"}), BACK),  # valid, action, target
        (ast({"type": "wait"}), BACK),  # valid, target
        (json.dumps({"action": {"type": "stop"}, "fallback": FB}), WAIT),  # invalid
    ]
    return [metrics.score_example(p, t) for p, t in cases]


def test_aggregate_matches_hand_counts():
    agg = metrics.aggregate(crafted())
    assert agg["n"] == 8
    assert agg["counts"] == {
        "ast_valid": 5,
        "action_match": 4,
        "target_match": 5,
        "action_and_target_match": 3,
    }
    assert agg["ast_validity"] == pytest.approx(5 / 8)
    assert agg["action_match"] == pytest.approx(4 / 8)
    assert agg["target_match"] == pytest.approx(5 / 8)
    assert agg["invalid_reasons"] == {"no_fallback": 1, "unparseable": 1, "terminal_action": 1}
    assert metrics.aggregate([])["ast_validity"] is None


def test_per_type_breakdown():
    pt = metrics.per_type(crafted())
    assert list(pt) == ["click", "type", "back", "wait"]
    assert pt["click"] == {
        "n": 3,
        "ast_validity": pytest.approx(2 / 3),
        "action_match": 1.0,
        "target_match": pytest.approx(2 / 3),
    }
    assert pt["back"]["action_match"] == 0.5 and pt["back"]["target_match"] == 1.0
    assert pt["wait"]["n"] == 1 and pt["wait"]["action_match"] == 0.0


def test_confusion_matrix_counts():
    cm = metrics.confusion_matrix(crafted())
    assert cm["cols"][-1] == "invalid" and cm["rows"] == list(metrics.ACTION_TYPES)
    c = {
        r: dict(zip(cm["cols"], row, strict=True))
        for r, row in zip(cm["rows"], cm["counts"], strict=True)
    }
    assert c["click"]["click"] == 3
    assert c["type"]["click"] == 1 and c["type"]["invalid"] == 1 and c["type"]["type"] == 0
    assert c["back"]["back"] == 1 and c["back"]["wait"] == 1
    assert c["wait"]["invalid"] == 1
    assert sum(map(sum, cm["counts"])) == 8


def test_exact_match_sees_a_wrongly_copied_text_that_target_match_misses():
    from evals.offline.metrics import aggregate, score_example

    target = (
        '{"action":{"type":"type","target":0,"text":"Nieves","submit":false},'
        '"fallback":{"type":"wait","reason":"loading","seconds":1.0}}'
    )
    wrong = target.replace("Nieves", "C")
    right = score_example(target, target)
    miscopied = score_example(wrong, target)
    assert right.exact_match and right.target_match
    assert miscopied.target_match and not miscopied.exact_match
    assert aggregate([right, miscopied])["exact_action_match"] == 0.5
