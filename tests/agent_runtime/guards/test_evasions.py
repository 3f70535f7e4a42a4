"""Property tests that generate evasions of the guards' text rules (issue 31): a bypass name
written in any case, width, spacing, with zero-width characters or look-alike letters, in any
free-text field of the action or of its fallback, and every recovery path, never executes; a
card number in any grouping, an e-mail or phone number is sent only where the contract allows;
labels and targets share one bound and a label names one element."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from agent_runtime.guards import compile_action
from agent_runtime.guards.content import BYPASS_NAMES, bypass_match, card_like
from contracts.guard_labels import RejectReason
from contracts.observation import MAX_LABEL, Observation
from tests.helpers.observations import el, obs

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PAGE = obs(
    el(0, "textbox", "Search", input_type="text"),
    el(1, "button", "Go"),
    el(2, "textbox", "Notes", input_type="text"),
    el(3, "textbox", "Código PIN", input_type="text"),
    el(4, "textbox", "Passwort", input_type="text"),
)
NAMES = [n for names in BYPASS_NAMES.values() for n in names]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]
SEPARATORS = [" ", ".", "-", "_", "·", " . ", "\u3000"]
HOMOGLYPHS = {
    "a": "аα",
    "c": "сϲ",
    "e": "еε",
    "o": "оοօ",
    "p": "рρ",
    "x": "хχ",
    "y": "у",
    "i": "іι",
    "s": "ѕ",
    "k": "κк",
    "h": "һ",
    "t": "т",
}
FILLER = st.sampled_from(["", "how to", "use", "for this site", "please", "best", "near me"])


@st.composite
def evasion(draw: st.DrawFn) -> tuple[str, str]:
    """(name, the name disguised) with one or more evasion techniques applied per letter."""
    name = draw(st.sampled_from(NAMES))
    spelled = draw(st.booleans())  # every letter apart: "c a p t c h a"
    sep = draw(st.sampled_from(SEPARATORS))
    out = []
    for ch in name:
        how = draw(st.sampled_from(["plain", "upper", "wide", "glyph", "zw"]))
        if how == "upper":
            ch = ch.upper()
        elif how == "wide" and "!" <= ch <= "~":
            ch = chr(ord(ch) + 0xFEE0)  # full-width forms
        elif how == "glyph" and ch in HOMOGLYPHS:
            ch = draw(st.sampled_from(list(HOMOGLYPHS[ch])))
        elif how == "zw":
            ch = ch + draw(st.sampled_from(ZERO_WIDTH))
        out.append(ch)
    disguised = sep.join(out) if spelled else "".join(out)
    return name, f"{draw(FILLER)} {disguised} {draw(FILLER)}".strip()


def field_actions(text: str) -> list[dict]:
    """Every free-text field an action can carry, as the primary and as the fallback."""
    return [
        {"action": {"type": "type", "target": 2, "text": text}},
        {"action": {"type": "search", "query": text}},
        {"action": {"type": "maps", "query": text}},  # non-geographic: recovered as a search
        {"action": {"type": "click", "target": 1}, "fallback": {"type": "search", "query": text}},
        {"action": {"type": "click", "target": 99}, "fallback": {"type": "maps", "query": text}},
        {"action": {"type": "maps", "query": "shops", "location": text}},
    ]


def executed_texts(raw: dict, geographic: bool) -> list[str]:
    res = compile_action(json.dumps(raw), PAGE, geographic=geographic, allow_sensitive=[])
    assert res.action is not None
    out = []
    for part in (res.action.action, res.action.fallback):
        out += [getattr(part, k, None) or "" for k in ("text", "query", "location")]
    return out


@SETTINGS
@given(evasion(), st.booleans())
def test_no_disguised_bypass_name_executes(case: tuple[str, str], geographic: bool) -> None:
    name, text = case
    assert bypass_match(text) is not None, (name, text)
    for raw in field_actions(text):
        texts = executed_texts(raw, geographic)
        assert all(bypass_match(t) is None for t in texts), (raw, texts)
        assert text not in texts


@pytest.mark.parametrize(
    "text",
    [
        "solve recaptcha via 2captcha",
        "cache:example.com/item",
        "example.com on archive.today",
        "log in with bugmenot",
        "ａｎｔｉ－ｃａｐｔｃｈａ",
        "by-pass the login wall",
    ],
)
def test_maps_recovered_as_search_is_screened(text: str) -> None:
    res = compile_action(json.dumps({"type": "maps", "query": text}), PAGE, geographic=False)
    a = res.action
    assert a is not None and a.action.type != "search" and a.fallback.type != "search"
    assert res.report.rejection is RejectReason.ACCESS_CIRCUMVENTION


@pytest.mark.parametrize(
    "text",
    [
        "usb-c hub under 40 dollars",
        "budget around 50 euros",
        "approximately 3 km from the station",
        "captain america poster",
        "archive boxes",
    ],
)
def test_ordinary_queries_pass(text: str) -> None:
    res = compile_action(json.dumps({"type": "search", "query": text}), PAGE, allow_sensitive=[])
    assert res.report.rejection is None and res.action.action.query == text


VISA = "4111111111111111"


@st.composite
def card(draw: st.DrawFn) -> str:
    sep = draw(st.sampled_from([" ", "-", ".", "/", "", " - "]))
    digits = VISA if draw(st.booleans()) else "5555555555554444"
    groups = [digits[i : i + 4] for i in range(0, 16, 4)]
    text = sep.join(groups)
    if draw(st.booleans()):
        text = "".join(chr(ord(c) + 0xFEE0) if c.isdigit() else c for c in text)
    return f"{draw(FILLER)} {text}".strip()


PERSONAL = st.sampled_from(["ada@example.org", "+44 20 7946 0958", "(555) 123-4567 ext"])


@SETTINGS
@given(st.one_of(card(), PERSONAL), st.sampled_from(["type", "search", "maps-loc"]))
def test_sensitive_text_needs_the_contracts_allowance(text: str, field: str) -> None:
    raw = {
        "type": {"type": "type", "target": 2, "text": text},
        "search": {"type": "search", "query": text},
        "maps-loc": {"type": "maps", "query": "bank", "location": text},
    }[field]
    kind = "payment" if card_like(text) else "personal"
    refused = compile_action(json.dumps(raw), PAGE, geographic=True, allow_sensitive=[])
    assert refused.report.rejection is RejectReason.SENSITIVE_INPUT
    assert text not in json.dumps(refused.action.model_dump(), ensure_ascii=False)
    allowed = compile_action(json.dumps(raw), PAGE, geographic=True, allow_sensitive=[kind])
    assert allowed.report.rejection is None, allowed.report


@pytest.mark.parametrize("target", [3, 4])  # a PIN field, a non-English password field
def test_secret_fields_need_credentials(target: int) -> None:
    raw = json.dumps({"type": "type", "target": target, "text": "1234"})
    assert compile_action(raw, PAGE, allow_sensitive=[]).report.rejection is (
        RejectReason.SENSITIVE_INPUT
    )
    assert compile_action(raw, PAGE, allow_sensitive=["credentials"]).report.rejection is None


@SETTINGS
@given(st.integers(min_value=MAX_LABEL - 2, max_value=MAX_LABEL + 10**6))
def test_labels_and_targets_share_one_bound(n: int) -> None:
    raw = json.dumps({"type": "click", "target": n})
    if n <= MAX_LABEL:
        page = obs(el(0, "button", "A"), el(n, "button", "B"))
        assert compile_action(raw, page).action.action.target == n
    else:
        big = {**el(0, "button", "A").model_dump(), "label": n}
        with pytest.raises(ValidationError):
            Observation.model_validate({"url": "http://127.0.0.1/", "labels": [big]})
        res = compile_action(raw, PAGE)
        assert res.report.rejection is RejectReason.INVALID_FIELD


def test_duplicate_labels_are_refused() -> None:
    with pytest.raises(ValidationError, match="appears twice"):
        Observation(url="http://127.0.0.1/", labels=[el(1, "button", "A"), el(1, "link", "B")])
