"""Every Action AST kind on real pages, fallbacks, and the recorded trajectory events."""

from __future__ import annotations

import time
from typing import Any

import pytest

from agent_runtime.browser.events import InteractionEvent, LocationEvent, NetworkEvent
from agent_runtime.browser.executor import Executor
from contracts.actions import (
    ActionAST,
    BackAction,
    ClickAction,
    MapsAction,
    ScrollAction,
    SearchAction,
    TypeAction,
    WaitAction,
)
from contracts.observation import Observation
from contracts.search import SearchProvider
from envs.server import StaticServer

pytestmark = pytest.mark.browser


def _open(page: Any, site: StaticServer, path: str) -> tuple[Executor, Observation]:
    ex = Executor(page, SearchProvider.local(site.url), async_screenshots=False)
    ex.goto(f"{site.url}/{path}")
    return ex, ex.observe()


def _lab(obs: Observation, text: str) -> int:
    return next(el.label for el in obs.labels if el.text == text)


def _run(ex: Executor, action: Any, **kw: Any) -> Any:
    return ex.execute(ActionAST(action=action, **kw))


def test_click_tab_and_link(page: Any, site: StaticServer) -> None:
    ex, obs = _open(page, site, "tabs.html")
    r = _run(ex, ClickAction(target=_lab(obs, "Reviews")))
    assert r.executed == "action" and r.ok
    assert page.inner_text("#panel") == "Reviews panel"
    r = _run(ex, ClickAction(target=_lab(obs, "Clickable card with a span")))
    assert r.ok and page.get_attribute("#card", "data-clicked") == "1"
    r = _run(ex, ClickAction(target=_lab(obs, "Go to the form")))
    assert r.ok
    assert ex.observe().title == "Contact form"


def test_type_select_checkbox_submit_and_events(page: Any, site: StaticServer) -> None:
    ex, obs = _open(page, site, "form.html")
    ex.events.drain()
    assert _run(ex, TypeAction(target=_lab(obs, "Name"), text="Ada")).ok
    assert page.input_value("#name") == "Ada"
    # type into a <select> chooses the option whose visible label matches (case-insensitive)
    r = _run(ex, TypeAction(target=_lab(obs, "City"), text="paris"))
    assert r.executed == "action" and page.input_value("#city") == "par"
    assert page.inner_text("#echo") == "city=par"  # the page saw a change event
    assert _run(ex, ClickAction(target=_lab(obs, "Send me the newsletter"))).ok
    assert page.is_checked("#news")
    assert ex.observe().label(_lab(obs, "Send me the newsletter")).checked is True  # type: ignore[union-attr]
    r = _run(ex, TypeAction(target=_lab(obs, "Message"), text="hello there", submit=False))
    assert r.ok
    r = _run(ex, TypeAction(target=_lab(obs, "Name"), text="Ada L", submit=True))
    assert r.ok
    page.wait_for_url("**/submit")
    assert "bytes posted" in ex.observe().page_text
    evs = ex.events.drain()
    inter = [e for e in evs if isinstance(e, InteractionEvent)]
    assert [e.action for e in inter] == ["type", "select", "checkbox", "type", "type"]
    assert inter[1].value == "Paris" and inter[1].tag == "select" and inter[0].text == "Name"
    assert inter[0].xpath.startswith("/html[1]/body[1]/")
    posts = [e for e in evs if isinstance(e, NetworkEvent)]
    assert posts and posts[0].method == "POST" and posts[0].base_path == "/submit"
    assert posts[0].post_data_bytes > 0
    assert any(isinstance(e, LocationEvent) and e.base_path == "/submit" for e in evs)


def test_type_select_without_match_runs_fallback(page: Any, site: StaticServer) -> None:
    ex, obs = _open(page, site, "form.html")
    r = _run(
        ex, TypeAction(target=_lab(obs, "City"), text="Atlantis"), fallback=WaitAction(seconds=0.1)
    )
    assert r.executed == "fallback" and r.ok and "Atlantis" in (r.primary_error or "")


def test_scroll_window_and_element(page: Any, site: StaticServer) -> None:
    ex, obs = _open(page, site, "tabs.html")
    assert _run(ex, ScrollAction(target="window", direction="down")).ok
    y = page.evaluate("() => window.scrollY")
    assert y > 500
    assert _run(ex, ScrollAction(target="window", direction="up")).ok
    assert page.evaluate("() => window.scrollY") < y
    page.evaluate("() => window.scrollTo(0, 0)")
    # An element inside the scrollable list: scrolling it moves the list, not the window.
    # The list gets a tabindex so that it is itself a labeled (focusable) target.
    page.evaluate("() => document.querySelector('#list').setAttribute('tabindex', '0')")
    obs = ex.observe()
    lst = next(el.label for el in obs.labels if el.text.startswith("Item 1"))
    assert _run(ex, ScrollAction(target=lst, direction="down")).ok
    assert page.evaluate("() => document.querySelector('#list').scrollTop") > 0
    assert page.evaluate("() => window.scrollY") == 0


def test_search_maps_back_wait(page: Any, site: StaticServer) -> None:
    ex, _ = _open(page, site, "index.html")
    assert _run(ex, SearchAction(query="contact form")).ok
    obs = ex.observe()
    assert obs.title == "Search: contact form" and "Contact form" in [e.text for e in obs.labels]
    assert _run(ex, MapsAction(query="coffee", location="Lisbon")).ok
    obs = ex.observe()
    assert obs.title.startswith("Maps: coffee") and "near Lisbon" in obs.page_text
    assert _run(ex, BackAction()).ok
    assert ex.observe().title == "Search: contact form"
    t0 = time.perf_counter()
    r = _run(ex, WaitAction(seconds=0.3))
    assert r.ok and 0.25 <= time.perf_counter() - t0 < 2.0


def test_back_without_history_runs_fallback(page: Any, site: StaticServer) -> None:
    ex = Executor(page, SearchProvider.local(site.url))
    ex.goto(f"{site.url}/index.html")
    r = _run(ex, BackAction(), fallback=ScrollAction())
    assert r.executed == "fallback" and r.ok


def test_fallback_when_target_gone(page: Any, site: StaticServer) -> None:
    ex, obs = _open(page, site, "tabs.html")
    gone = _lab(obs, "Vanishing button")
    assert _run(ex, ClickAction(target=gone)).ok  # the button removes itself
    t0 = time.perf_counter()
    r = _run(ex, ClickAction(target=gone), fallback=ScrollAction(direction="down"))
    assert r.executed == "fallback" and r.ok and r.primary_error
    assert time.perf_counter() - t0 < 3.0  # bounded by the short action timeout
    assert page.evaluate("() => window.scrollY") > 0
    # a label the last observation never had fails at once, without any timeout
    t0 = time.perf_counter()
    r = _run(ex, ClickAction(target=999), fallback=WaitAction(seconds=0.1))
    assert r.executed == "fallback" and time.perf_counter() - t0 < 1.0


def test_both_fail_reports_none(page: Any, site: StaticServer) -> None:
    ex = Executor(page, SearchProvider.local(site.url))
    ex.goto(f"{site.url}/index.html")
    ex.observe()
    r = _run(ex, ClickAction(target=999), fallback=BackAction())
    assert r.executed == "none" and not r.ok and r.error
