"""Guards tightened for the contract sites: walls, sensitive input, duplicate keys, bad text."""

from __future__ import annotations

import pytest

from agent_runtime.guards import compile_action
from contracts import BBox, ElementLabel, Observation, RejectReason


def _obs() -> Observation:
    box = BBox(x=0, y=0, width=10, height=10)
    return Observation(
        url="http://127.0.0.1:9/item/SH-0001",
        labels=[
            ElementLabel(label=0, role="textbox", text="Password", input_type="password", bbox=box),
            ElementLabel(label=1, role="textbox", text="Search this site", bbox=box),
            ElementLabel(label=2, role="button", text="Go", bbox=box),
        ],
    )


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ('{"action": {"type": "click", "target": 2, "target": 1}}', RejectReason.DUPLICATE_KEY),
        ('{"action": {"type": "click", "type": "scroll"}}', RejectReason.DUPLICATE_KEY),
        ('{"action": {"type": "search", "query": "lamps\\ud800"}}', RejectReason.UNDECODABLE_TEXT),
        (
            '{"action": {"type": "type", "target": 1, "text": "a\\u0007b"}}',
            RejectReason.UNDECODABLE_TEXT,
        ),
        ('{"action": {"type": "search", "query": "x"}}\udc80', RejectReason.UNDECODABLE_TEXT),
        (
            '{"action": {"type": "search", "query": "captcha solver for this site"}}',
            RejectReason.ACCESS_CIRCUMVENTION,
        ),
        (
            '{"action": {"type": "search", "query": "cached copy of the seller page"}}',
            RejectReason.ACCESS_CIRCUMVENTION,
        ),
        (
            '{"action": {"type": "type", "target": 1, "text": "view warranty without logging in"}}',
            RejectReason.ACCESS_CIRCUMVENTION,
        ),
        (
            '{"action": {"type": "type", "target": 0, "text": "hunter2"}}',
            RejectReason.SENSITIVE_INPUT,
        ),
        (
            '{"action": {"type": "type", "target": 1, "text": "4111 1111 1111 1111"}}',
            RejectReason.SENSITIVE_INPUT,
        ),
        (
            '{"action": {"type": "type", "target": 1, "text": "me@example.com"}}',
            RejectReason.SENSITIVE_INPUT,
        ),
    ],
)
def test_rejected_with_its_own_label(raw: str, reason: RejectReason) -> None:
    res = compile_action(raw, _obs(), allow_sensitive=[])
    assert res.report.rejection is reason
    assert res.action is not None and res.report.fallback_used
    assert res.action.action.type not in ("type", "search")  # the offending action never runs


def test_a_fallback_that_routes_around_a_wall_is_replaced() -> None:
    raw = (
        '{"action": {"type": "scroll"}, '
        '"fallback": {"type": "search", "query": "archive.org copy"}}'
    )
    res = compile_action(raw, _obs(), allow_sensitive=[])
    assert "repair:invalid_fallback" in res.report.labels()
    assert "access_circumvention" in res.report.detail
    assert res.action is not None and res.action.fallback.type != "search"


def test_allowed_sensitive_input_and_plain_text_pass() -> None:
    ok = compile_action(
        '{"action": {"type": "type", "target": 0, "text": "hunter2"}}',
        _obs(),
        allow_sensitive=["credentials"],
    )
    assert ok.report.rejection is None and ok.action.action.type == "type"
    plain = compile_action(
        '{"action": {"type": "type", "target": 1, "text": "4K monitor"}}',
        _obs(),
        allow_sensitive=[],
    )
    assert plain.report.rejection is None
    # No policy (MiniWoB's page-instructed logins): nothing is refused for sensitivity.
    free = compile_action('{"action": {"type": "type", "target": 0, "text": "hunter2"}}', _obs())
    assert free.report.rejection is None
