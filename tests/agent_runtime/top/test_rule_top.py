"""Rule top decisions: browse (re-derived commands), stop, block, answer (Table 48)."""

from __future__ import annotations

from agent_runtime.top.base import TopLayer
from agent_runtime.top.rule_top import RuleTop
from contracts import (
    AccessSignal,
    EnvSpec,
    EvidenceObligation,
    IntentContract,
    PersonaPolicy,
    RecentAction,
    RecentHistory,
    TopState,
)
from envs.miniwob.contracts import miniwob_contract
from tests.helpers.observations import el, obs
from tests.helpers.protocols import assert_implements


def _done(history: RecentHistory, i: int, kind: str = "click", ok: bool = True) -> RecentHistory:
    return history.push(RecentAction(step_index=i, url="u", action="{}", action_type=kind, ok=ok))


def test_protocol() -> None:
    top = RuleTop()
    assert_implements(top, TopLayer)
    top.start(miniwob_contract("click-button", 1), 'Click on the "ok" button.')
    s = top.step(obs(el(0, "button", "ok")), RecentHistory())
    assert isinstance(s, TopState) and s.decision == "browse"


def test_checkboxes_rederived_from_observation() -> None:
    top = RuleTop()
    top.start(miniwob_contract("click-checkboxes", 1), "Select ab, cd and click Submit.")
    h = RecentHistory()
    o = obs(
        el(0, "checkbox", "ab", checked=False),
        el(1, "checkbox", "cd", checked=False),
        el(2, "button", "Submit"),
    )
    s = top.step(o, h)
    assert (s.decision, s.command) == ("browse", 'check "ab"')
    # The click failed (box still unchecked): the same command again.
    h = _done(h, 0, ok=False)
    assert top.step(o, h).command == 'check "ab"'
    # Both boxes already checked (e.g. by an earlier step): skip straight to submit.
    o2 = obs(
        el(0, "checkbox", "ab", checked=True),
        el(1, "checkbox", "cd", checked=True),
        el(2, "button", "Submit"),
    )
    h = _done(h, 1)
    assert top.step(o2, h).command == "submit"
    h = _done(h, 2)
    s = top.step(o2, h)
    assert s.decision == "stop"


def test_stop_when_env_done() -> None:
    top = RuleTop()
    top.start(miniwob_contract("click-button", 1), 'Click on the "ok" button.')
    top.note_env_status(True)
    assert top.step(obs(el(0, "button", "ok")), RecentHistory()).decision == "stop"


def test_reveal_then_click() -> None:
    top = RuleTop()
    top.start(
        miniwob_contract("click-tab-2", 1),
        'Switch between the tabs to find and click on the link "vel".',
    )
    h = RecentHistory()
    tabs = [el(0, "tab", "Tab #1"), el(1, "tab", "Tab #2")]
    assert top.step(obs(*tabs, el(2, "generic", "nunc")), h).command == 'click "Tab #1" tab'
    assert top.step(obs(*tabs), _done(h, 0)).command == "wait"  # let the part render
    assert top.step(obs(*tabs), _done(h, 1, "wait")).command == 'click "Tab #2" tab'
    s = top.step(obs(*tabs, el(2, "generic", "vel")), _done(h, 2))
    assert s.command == 'click "vel" link'


def test_block_on_external_access() -> None:
    top = RuleTop()
    top.start(miniwob_contract("click-button", 1), 'Click on the "ok" button.')
    o = obs(el(0, "button", "ok")).model_copy(update={"access_signal": AccessSignal.CAPTCHA})
    s = top.step(o, RecentHistory())
    assert s.decision == "block" and s.blockers == ["external_access:captcha"]


def test_unsupported_goal_stops() -> None:
    top = RuleTop()
    top.start(miniwob_contract("draw-circle", 1), "Draw a circle.")
    s = top.step(obs(), RecentHistory())
    assert s.decision == "stop" and "unsupported_goal" in s.blockers


def _site_contract(**kw) -> IntentContract:
    return IntentContract(
        contract_id="c1",
        base_task_id="b1",
        request="r",
        goal='click "Specs"',
        persona=PersonaPolicy.named("explicit_control"),
        env=EnvSpec(kind="local_site", start_url="http://127.0.0.1/"),
        evidence_obligations=[EvidenceObligation(id="width", text="blackout width 120 cm")],
        **kw,
    )


def test_answer_when_evidence_covered_and_block_on_material_blocker() -> None:
    top = RuleTop()
    top.start(_site_contract(), 'click "Specs"')
    s = top.step(obs(el(0, "link", "Specs"), page_text="Home"), RecentHistory())
    assert (
        s.decision == "browse" and s.command == 'click "Specs"' and s.missing_evidence == ["width"]
    )
    s = top.step(obs(page_text="Blackout curtain, width 120 cm"), RecentHistory())
    assert s.decision == "answer" and s.ledger[0].obligation_id == "width" and "120 cm" in s.answer
    top = RuleTop()
    top.start(_site_contract(material_blockers=["out of stock"]), 'click "Specs"')
    s = top.step(obs(page_text="Sorry, out of stock"), RecentHistory())
    assert s.decision == "block" and s.blockers == ["out of stock"]
