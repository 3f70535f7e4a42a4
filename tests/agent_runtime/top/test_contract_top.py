"""The deterministic contract top on synthetic observations: what it reads, when it decides."""

from __future__ import annotations

import json

from agent_runtime.top.contract_top import ContractTop
from agent_runtime.top.llm_top import LLMTop
from contracts import AccessSignal, BBox, ElementLabel, Observation, RecentHistory
from envs.sites.pairing import make_contract
from envs.sites.world import generate_world

W = generate_world()
BOX = BBox(x=0, y=0, width=10, height=10)


def _contract(task_id: str, persona: str = "explicit_control"):
    t = W.task(task_id)
    return make_contract(t, persona, W.sites[t.site], W.seed)


def _item_obs(item_id: str) -> Observation:
    site = W.sites["shop"]
    it = site.item(item_id)
    text = it.title + "\n" + "\n".join(f"{k}: {v}" for k, v in it.facts.items())
    links = [ElementLabel(label=0, role="link", text="Seller details", bbox=BOX)]
    return Observation(
        url=f"http://127.0.0.1:1/item/{it.id}",
        title=f"{it.title} - Northwind Shop",
        page_text=text,
        labels=links,
    )


def _seller_obs(item_id: str) -> Observation:
    site = W.sites["shop"]
    page = site.page(site.item(item_id).related["seller"])
    text = page.title + "\n" + "\n".join(f"{k}: {v}" for k, v in page.facts.items())
    return Observation(
        url=f"http://127.0.0.1:1/p/seller/{page.id}",
        title=page.title,
        page_text=text,
        labels=[ElementLabel(label=0, role="link", text="Home", bbox=BOX)],
    )


def _results_obs(ids: list[str]) -> Observation:
    """A search results page (title, source line, listing facts) with these items, in order."""
    site = W.sites["shop"]
    lines, labels = ["Local search"], []
    for n, i in enumerate(ids):
        it = site.item(i)
        lines += [
            it.title,
            f"Northwind Shop · {it.category}",
            " · ".join(f"{f}: {it.facts[f]}" for f in it.snippet),
        ]
        labels.append(ElementLabel(label=n, role="link", text=it.title, bbox=BOX))
    return Observation(
        url="http://127.0.0.1:2/search?q=x",
        title="x - Local search",
        page_text="\n".join(lines),
        labels=labels,
    )


def _start(top: ContractTop, contract, first: str) -> None:
    top.start(contract, contract.request)
    home = Observation(
        url="http://127.0.0.1:1/",
        title="Northwind Shop",
        page_text="Northwind Shop",
        labels=[ElementLabel(label=0, role="link", text="Monitors", bbox=BOX)],
    )
    state = top.step(home, RecentHistory())
    assert state.decision == "browse" and state.command.startswith("search ")
    others = [i.id for i in W.sites["shop"].items if i.id != first][:2]
    state = top.step(_results_obs([first, *others]), RecentHistory())
    assert state.command == f'click "{W.sites["shop"].item(first).title}" link'


def test_withholds_the_answer_until_every_obligation_is_covered() -> None:
    c = _contract("shop-01")
    gold = W.gold["shop-01"].valid[0]
    top = ContractTop()
    _start(top, c, gold)
    on_item = top.step(_item_obs(gold), RecentHistory())
    assert on_item.decision == "browse" and on_item.command == 'click "Seller details" link'
    assert "e_seller_return_window" in on_item.missing_evidence
    done = top.step(_seller_obs(gold), RecentHistory())
    assert done.decision == "answer" and not done.missing_evidence
    form = json.loads(done.answer)
    assert form["selection"] == gold and set(form) == set(c.answer_schema.fields)


def test_an_explorer_keeps_looking_after_one_good_candidate() -> None:
    c = _contract("shop-01", "quality_first_explorer")
    gold = W.gold["shop-01"].valid[0]
    top = ContractTop()
    _start(top, c, gold)
    top.step(_item_obs(gold), RecentHistory())
    after = top.step(_seller_obs(gold), RecentHistory())
    assert after.decision == "browse"  # one candidate is not a comparison
    assert "e_compare_two" in after.missing_evidence


def test_uncertainty_averse_asks_when_a_blocker_stays_open() -> None:
    c = _contract("shop-01", "uncertainty_averse")
    site = W.sites["shop"]
    gold_cat = site.item(W.gold["shop-01"].valid[0]).category
    open_item = next(
        i
        for i in site.items
        if i.category == gold_cat
        and i.facts["Warranty"] == "Not stated"
        and i.facts["Condition"] == site.item(W.gold["shop-01"].valid[0]).facts["Condition"]
    )
    top = ContractTop()
    _start(top, c, open_item.id)
    state = top.step(_item_obs(open_item.id), RecentHistory())
    assert state.decision == "ask" and "Warranty" in state.blockers[0]
    plain = ContractTop()
    _start(plain, _contract("shop-01"), open_item.id)
    assert plain.step(_item_obs(open_item.id), RecentHistory()).decision == "browse"  # moves on


def test_blocks_at_a_wall_and_never_answers_there() -> None:
    c = _contract("shop-01")
    top = ContractTop()
    _start(top, c, W.gold["shop-01"].valid[0])
    wall = Observation(
        url="http://127.0.0.1:1/p/seller/x",
        status=429,
        title="429 Too Many Requests",
        page_text="Too many requests",
        access_signal=AccessSignal.HTTP_429,
    )
    state = top.step(wall, RecentHistory())
    assert state.decision == "block" and state.blockers == ["external_access:http_429"]


def test_llm_top_is_told_the_answer_form() -> None:
    c = _contract("directory-02")
    top = LLMTop("http://127.0.0.1:9/v1", "m")
    top.start(c, c.request)
    text = top._user_text(Observation(url="http://127.0.0.1:1/"), RecentHistory())
    assert "selection, support, caveat, alternatives" in text and "Location: " in text


def test_contract_top_implements_the_top_layer_protocol():
    from agent_runtime.top.base import TopLayer
    from tests.helpers.protocols import assert_implements

    assert_implements(ContractTop, TopLayer)
