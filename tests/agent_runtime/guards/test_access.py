"""External-access signals stop automation and are never bypassed (WebRider Table 46)."""

from __future__ import annotations

import pytest

from agent_runtime.guards import compile_action, detect_access_signal
from contracts.guard_labels import AccessSignal, RejectReason
from contracts.observation import BBox, ElementLabel

from .conftest import load_obs

RAW = '{"action": {"type": "click", "target": 2}, "fallback": {"type": "back"}}'
IFRAME = ElementLabel(
    label=9,
    role="iframe",
    tag="iframe",
    text="reCAPTCHA",
    bbox=BBox(x=0, y=0, width=300, height=80),
)

CASES = [
    ({"status": 401}, AccessSignal.HTTP_401),
    ({"status": 403}, AccessSignal.HTTP_403),
    ({"status": 429}, AccessSignal.HTTP_429),
    ({"access_signal": AccessSignal.LOGIN_WALL}, AccessSignal.LOGIN_WALL),
    ({"page_text": "Please VERIFY YOU ARE HUMAN to continue"}, AccessSignal.CAPTCHA),
    (
        {"page_text": "Our systems have detected unusual traffic from your computer network."},
        AccessSignal.ANTI_BOT,
    ),
    (
        {"page_text": "Access Denied. You don't have permission to access this server."},
        AccessSignal.ANTI_BOT,
    ),
    ({"page_text": "Sign in to continue reading this article."}, AccessSignal.LOGIN_WALL),
    ({"title": "Just a moment..."}, AccessSignal.ANTI_BOT),
    ({"title": "Robot Check"}, AccessSignal.CAPTCHA),
    (
        {"url": "https://www.google.com/sorry/index?continue=https://www.google.com/search"},
        AccessSignal.CAPTCHA,
    ),
    ({"url": "https://shop.example.com/login?next=/orders"}, AccessSignal.LOGIN_WALL),
    (
        {"url": "https://accounts.google.com/v3/signin/identifier?continue=x"},
        AccessSignal.LOGIN_WALL,
    ),
    ({"labels": [IFRAME]}, AccessSignal.CAPTCHA),
    (
        {"labels": [IFRAME.model_copy(update={"text": "Widget containing checkbox for hCaptcha"})]},
        AccessSignal.CAPTCHA,
    ),
]


@pytest.mark.parametrize(("update", "signal"), CASES)
def test_each_signal_is_detected_and_stops_automation(update, signal):
    obs = load_obs(**update)
    assert detect_access_signal(obs) is signal
    res = compile_action(RAW, obs)
    assert res.action is None
    assert res.report.external_access is signal
    assert res.report.rejection is RejectReason.EXTERNAL_ACCESS
    assert f"external_access:{signal.value}" in res.report.labels()
    line = res.to_line()
    assert line["action"] is None and line["fallback"] is None


def test_specific_evidence_wins_over_bare_status():
    obs = load_obs(name="captcha_observation.json")
    assert obs.status == 403
    assert detect_access_signal(obs) is AccessSignal.ANTI_BOT


def test_no_bypass_even_for_a_perfect_action_or_a_fallback():
    obs = load_obs(status=429)
    for raw in (RAW, '{"type": "go_back"}', '{"type": "google_search", "query": "x"}', "junk"):
        res = compile_action(raw, obs)
        assert res.action is None and res.report.external_access is AccessSignal.HTTP_429


def test_ordinary_pages_are_not_flagged():
    assert detect_access_signal(load_obs()) is None
    # A login *task* (MiniWoB login-user) is not a login wall, nor is an article about CAPTCHAs.
    login_task = load_obs(
        url="http://127.0.0.1:8000/miniwob/login-user.html",
        page_text="Enter the username and password and press login.",
    )
    assert detect_access_signal(login_task) is None
    article = load_obs(page_text="A history of the captcha and why sites use it.")
    assert detect_access_signal(article) is None
    assert detect_access_signal(load_obs(status=404)) is None
