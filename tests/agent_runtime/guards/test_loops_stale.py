"""Repeated-state and scroll-loop detection from state hashes, and stale pages (Tables 45-46)."""
# ruff: noqa: E501  (raw model outputs are kept on one line, as a model emits them)

from __future__ import annotations

from agent_runtime.guards import compile_action
from contracts.guard_labels import GuardStatus, LoopKind, RejectReason

from .conftest import history_of, load_obs

CLICK2 = '{"type":"click","target":2}'
SCROLL_DOWN = '{"type":"scroll","target":"window","direction":"down"}'
RAW_CLICK2 = '{"action": {"type": "click", "target": 2}, "fallback": {"type": "back"}}'
RAW_SCROLL = '{"action": {"type": "scroll", "direction": "down"}, "fallback": {"type": "scroll", "direction": "down"}}'


def test_same_action_from_the_same_state_twice_is_a_repeated_state_loop(obs):
    h = obs.state_hash
    hist = history_of((h, CLICK2, "click"), ("other", CLICK2, "click"), (h, CLICK2, "click"))
    res = compile_action(RAW_CLICK2, obs, hist)
    assert res.report.loop is LoopKind.REPEATED_STATE
    assert res.report.rejection is RejectReason.REPEATED_STATE
    assert "loop:repeated_state" in res.report.labels() and res.report.fallback_used
    assert res.action.action.model_dump() == {"type": "back", "reason": "loop"}


def test_one_earlier_try_or_a_different_action_is_not_a_loop(obs):
    h = obs.state_hash
    once = history_of((h, CLICK2, "click"), ("other", CLICK2, "click"))
    assert compile_action(RAW_CLICK2, obs, once).report.loop is None
    other = history_of(
        (h, '{"type":"click","target":3}', "click"), (h, '{"type":"click","target":3}', "click")
    )
    res = compile_action(RAW_CLICK2, obs, other)
    assert res.report.loop is None and res.action.action.model_dump() == {
        "type": "click",
        "target": 2,
    }


def test_repeated_scroll_state_scrolls_the_other_way(obs):
    h = obs.state_hash
    up = '{"type":"scroll","target":"window","direction":"up"}'
    # Scrolls separated by other steps: not a stalled run, but the same state keeps recurring.
    hist = history_of(
        (h, up, "scroll"), ("x", CLICK2, "click"), (h, up, "scroll"), ("y", CLICK2, "click")
    )
    res = compile_action('{"type": "scroll_up"}', obs, hist)
    assert res.report.loop is LoopKind.REPEATED_STATE
    assert res.action.action.model_dump() == {
        "type": "scroll",
        "target": "window",
        "direction": "down",
    }


def test_scrolls_that_do_not_change_the_state_hash_are_a_scroll_loop(obs):
    h = obs.state_hash
    hist = history_of(
        ("a", CLICK2, "click"), (h, SCROLL_DOWN, "scroll"), (h, SCROLL_DOWN, "scroll")
    )
    res = compile_action(RAW_SCROLL, obs, hist)
    assert res.report.status is GuardStatus.REJECTED
    assert res.report.rejection is RejectReason.SCROLL_LOOP
    assert res.report.loop is LoopKind.SCROLL_LOOP
    assert res.action.action.type in ("back", "wait")
    assert res.action.action.model_dump() == {"type": "back", "reason": "loop"}


def test_scrolls_that_changed_the_page_are_not_a_loop(obs):
    hist = history_of(("p1", SCROLL_DOWN, "scroll"), ("p2", SCROLL_DOWN, "scroll"))
    res = compile_action(RAW_SCROLL, obs, hist)
    assert res.report.loop is None and res.action.action.type == "scroll"


def test_a_scroll_fallback_in_a_scroll_loop_is_replaced(obs):
    h = obs.state_hash
    hist = history_of((h, SCROLL_DOWN, "scroll"), (h, SCROLL_DOWN, "scroll"))
    raw = '{"action": {"type": "click", "target": 99}, "fallback": {"type": "scroll", "direction": "down"}}'
    res = compile_action(raw, obs, hist)
    assert res.report.rejection is RejectReason.INVISIBLE_TARGET
    assert res.report.loop is LoopKind.SCROLL_LOOP
    assert res.action.action.type == "back"


def test_target_absent_after_a_stalled_scroll_goes_back(obs):
    hist = history_of((obs.state_hash, SCROLL_DOWN, "scroll"))
    res = compile_action('{"type": "click", "target": 77}', obs, hist)
    assert res.action.action.model_dump() == {"type": "back", "reason": "dead_end"}


def test_loop_on_back_recovers_with_wait(obs):
    h = obs.state_hash
    back = '{"type":"back","reason":"history"}'
    hist = history_of((h, back, "back"), (h, back, "back"))
    res = compile_action('{"type": "go_back"}', obs, hist)
    assert res.report.loop is LoopKind.REPEATED_STATE
    assert res.action.action.model_dump() == {"type": "wait", "reason": "loop", "seconds": 1.0}


def test_empty_state_hash_is_computed_for_loop_detection(obs):
    h = obs.state_hash
    bare = obs.model_copy(update={"state_hash": ""})
    hist = history_of((h, SCROLL_DOWN, "scroll"), (h, SCROLL_DOWN, "scroll"))
    assert compile_action(RAW_SCROLL, bare, hist).report.loop is LoopKind.SCROLL_LOOP


def test_navigation_error_means_stale_and_wait():
    obs = load_obs(error="Execution context was destroyed, most likely because of a navigation")
    res = compile_action(RAW_CLICK2, obs)
    assert res.report.stale and "stale" in res.report.labels()
    assert res.report.status is GuardStatus.PARSED  # the raw output itself was fine
    assert res.action.action.model_dump() == {"type": "wait", "reason": "loading", "seconds": 1.0}


def test_detached_frame_is_stale_state_and_redirect_status_is_loading():
    detached = compile_action(RAW_CLICK2, load_obs(error="Frame was detached"))
    assert detached.action.action.model_dump()["reason"] == "stale_state"
    for status in (302, 503):
        res = compile_action(RAW_CLICK2, load_obs(status=status))
        assert res.report.stale and res.action.action.type == "wait"


def test_blank_page_is_stale_and_unrelated_error_is_not():
    blank = load_obs(url="about:blank", labels=[], page_text="")
    assert compile_action(RAW_CLICK2, blank).report.stale
    ok = compile_action(RAW_CLICK2, load_obs(error="element 5 was not clickable"))
    assert not ok.report.stale and ok.action.action.type == "click"


def test_stale_keeps_the_rejection_label():
    res = compile_action("garbage", load_obs(status=301))
    assert res.report.stale and res.report.rejection is RejectReason.UNPARSEABLE
    assert res.action.action.type == "wait"
