"""Eq. 4's five gates on crafted traces: a passing trace, and each way of failing each gate."""

from __future__ import annotations

import json

import pytest

from contracts import ContractRef, Observation, StepRow, TopState
from contracts.intent import IntentContract
from envs.sites import gates
from envs.sites.pairing import make_contract
from envs.sites.world import generate_world

W = generate_world()


def _contract(task_id: str, persona: str = "explicit_control") -> IntentContract:
    task = W.task(task_id)
    return make_contract(task, persona, W.sites[task.site], W.seed)


def _page(item_id: str, site: str, page: str = "item") -> Observation:
    """What a browser shows on an item's page (or a related page) of a site."""
    s = W.sites[site]
    it = s.item(item_id)
    assert it is not None
    if page == "item":
        url, facts, title = f"http://127.0.0.1:1/item/{it.id}", it.facts, it.title
    elif page == "map":
        rel = s.page(it.related["map"])
        url, facts, title = "http://127.0.0.1:2/maps?q=x", rel.facts, it.title
    else:
        rel = s.page(it.related[page])
        url, facts, title = f"http://127.0.0.1:1/p/{page}/{rel.id}", rel.facts, rel.title
    text = title + "\n" + "\n".join(f"{k}: {v}" for k, v in facts.items())
    return Observation(url=url, title=title, page_text=text)


def _rows(c: IntentContract, observations: list[Observation]) -> list[StepRow]:
    ref = ContractRef(contract_id=c.contract_id, base_task_id=c.base_task_id, sha256="x")
    return [
        StepRow(
            rollout_id="r@0", step_index=i, contract=ref, top=TopState(intention="-"), observation=o
        )
        for i, o in enumerate(observations)
    ]


def _full_trace(c: IntentContract, item_id: str) -> list[Observation]:
    site = c.env.site
    pages = (
        {o.page or "item" for o in c.evidence_obligations}
        | {b.page for b in c.blocker_checks}
        | {"item"}
    )
    return [_page(item_id, site, p) for p in sorted(pages)]


def _answer(c: IntentContract, item_id: str, **extra: object) -> str:
    form: dict[str, object] = {
        "selection": item_id,
        "support": ["seen"],
        "caveat": "none",
        "alternatives": [],
    }
    form.update(extra)
    return json.dumps({k: v for k, v in form.items() if k in c.answer_schema.fields})


def _select_task() -> tuple[IntentContract, str]:
    c = _contract("shop-01")
    return c, W.gold["shop-01"].valid[0]


def test_a_complete_trace_passes_every_gate() -> None:
    c, gold_item = _select_task()
    g = gates.score(
        c,
        W.sites["shop"],
        W.gold["shop-01"],
        _rows(c, _full_trace(c, gold_item)),
        "answer",
        _answer(c, gold_item),
    )
    assert g.cgs and not g.reasons


@pytest.mark.parametrize("terminal", ["step_cap", "ask", "stop", "timeout", "access_failure"])
def test_terminal_gate_fails_without_an_answer(terminal: str) -> None:
    c, gold_item = _select_task()
    g = gates.score(
        c,
        W.sites["shop"],
        W.gold["shop-01"],
        _rows(c, _full_trace(c, gold_item)),
        terminal,
        _answer(c, gold_item),
    )
    assert not g.terminal and not g.cgs


def test_hard_gate_fails_on_a_decoy_that_misses_one_constraint() -> None:
    c, gold_item = _select_task()
    site = W.sites["shop"]
    gold = site.item(gold_item)
    decoy = next(
        i
        for i in site.items
        if i.category == gold.category
        and i.id not in W.gold["shop-01"].valid
        and i.facts["Condition"] == gold.facts["Condition"]
        and i.facts["Availability"] == "In stock"
    )
    g = gates.score(
        c,
        site,
        W.gold["shop-01"],
        _rows(c, _full_trace(c, decoy.id)),
        "answer",
        _answer(c, decoy.id),
    )
    assert not g.hard and not g.cgs
    assert any(r.startswith("hard:") for r in g.reasons)


def test_evidence_gate_fails_when_an_obligation_page_was_never_seen() -> None:
    c, gold_item = _select_task()
    trace = [o for o in _full_trace(c, gold_item) if "/p/seller/" not in o.url]
    g = gates.score(
        c, W.sites["shop"], W.gold["shop-01"], _rows(c, trace), "answer", _answer(c, gold_item)
    )
    assert not g.evidence and g.hard and not g.cgs


def test_evidence_must_be_the_chosen_items_own_page() -> None:
    c, gold_item = _select_task()
    other = next(i.id for i in W.sites["shop"].items if i.id != gold_item)
    trace = [_page(other, "shop")] + [o for o in _full_trace(c, gold_item) if "/item/" not in o.url]
    g = gates.score(
        c, W.sites["shop"], W.gold["shop-01"], _rows(c, trace), "answer", _answer(c, gold_item)
    )
    assert not g.evidence


@pytest.mark.parametrize(
    "broken",
    [
        {"selection": None},
        {"selection": "not-an-id"},
        {"support": []},
        {"alternatives": "SH-0002"},
    ],
)
def test_answer_gate_fails_on_missing_or_malformed_fields(broken: dict[str, object]) -> None:
    c, gold_item = _select_task()
    form = json.loads(_answer(c, gold_item))
    form.update(broken)
    g = gates.score(
        c,
        W.sites["shop"],
        W.gold["shop-01"],
        _rows(c, _full_trace(c, gold_item)),
        "answer",
        json.dumps(form),
    )
    assert not g.answer and not g.cgs


def test_answer_gate_fails_on_prose_instead_of_the_form() -> None:
    c, gold_item = _select_task()
    g = gates.score(
        c,
        W.sites["shop"],
        W.gold["shop-01"],
        _rows(c, _full_trace(c, gold_item)),
        "answer",
        f"I recommend {gold_item}.",
    )
    assert not g.answer


def test_blocker_gate_fails_when_the_resolving_fact_was_never_seen_or_stays_open() -> None:
    c, gold_item = _select_task()
    assert c.blocker_checks, "shop-01 carries the warranty blocker"
    site = W.sites["shop"]
    # Never seen: only the seller page was observed.
    trace = [o for o in _full_trace(c, gold_item) if "/item/" not in o.url]
    g = gates.score(c, site, W.gold["shop-01"], _rows(c, trace), "answer", _answer(c, gold_item))
    assert not g.blocker
    # Open: the blocker decoy shows "Warranty: Not stated" on its own page.
    open_item = next(
        i
        for i in site.items
        if i.facts.get("Warranty") == "Not stated" and i.category == site.item(gold_item).category
    )
    g = gates.score(
        c,
        site,
        W.gold["shop-01"],
        _rows(c, _full_trace(c, open_item.id)),
        "answer",
        _answer(c, open_item.id),
    )
    assert not g.blocker and not g.cgs


def test_a_persona_that_must_compare_two_candidates_fails_after_one() -> None:
    c = _contract("shop-01", "quality_first_explorer")
    assert any(o.min_items == 2 for o in c.evidence_obligations)
    gold_item = W.gold["shop-01"].valid[0]
    one = _full_trace(c, gold_item)
    g = gates.score(
        c, W.sites["shop"], W.gold["shop-01"], _rows(c, one), "answer", _answer(c, gold_item)
    )
    assert not g.evidence and not g.cgs
    other = next(i.id for i in W.sites["shop"].items if i.id != gold_item)
    two = [_page(other, "shop"), *one]
    g = gates.score(
        c, W.sites["shop"], W.gold["shop-01"], _rows(c, two), "answer", _answer(c, gold_item)
    )
    assert g.evidence and g.cgs


def test_privacy_guardian_fails_hard_constraint_after_opening_a_sign_in_page() -> None:
    task = next(t for t in W.tasks if t.site == "booking" and t.mode == "plan")
    c = make_contract(task, "safety_privacy_guardian", W.sites["booking"], W.seed)
    item = next(i for i in W.gold[task.id].valid if i not in W.gold[task.id].access_blocked_items)
    trace = _full_trace(c, item)
    ok = gates.score(
        c, W.sites["booking"], W.gold[task.id], _rows(c, trace), "answer", _answer(c, item)
    )
    assert ok.hard
    login = Observation(
        url="http://127.0.0.1:1/login?next=/p/fees/x", page_text="Sign in to continue"
    )
    bad = gates.score(
        c,
        W.sites["booking"],
        W.gold[task.id],
        _rows(c, [login, *trace]),
        "answer",
        _answer(c, item),
    )
    assert not bad.hard


def test_evidence_answers_are_checked_against_gold_values() -> None:
    c = _contract("shop-05")  # lookup: the seller's return window
    subject = W.gold["shop-05"].expected["selection"]
    trace = _full_trace(c, subject)
    right = _answer(c, subject, value=W.gold["shop-05"].expected["value"])
    wrong = _answer(c, subject, value="365 days")
    assert gates.score(c, W.sites["shop"], W.gold["shop-05"], _rows(c, trace), "answer", right).cgs
    assert not gates.score(
        c, W.sites["shop"], W.gold["shop-05"], _rows(c, trace), "answer", wrong
    ).hard
