"""Set-of-mark observation against the local fixture pages."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from agent_runtime.browser.executor import Executor
from agent_runtime.browser.launch import BrowserSession
from contracts.search import SearchProvider
from envs.server import StaticServer
from tests.helpers.browser import fresh_page

pytestmark = pytest.mark.browser


def _ex(page: Any, site: StaticServer) -> Executor:
    return Executor(page, SearchProvider.local(site.url))


def test_labels_visible_not_hidden(page: Any, site: StaticServer) -> None:
    ex = _ex(page, site)
    ex.goto(site.url + "/tabs.html")
    obs = ex.observe()
    texts = [el.text for el in obs.labels]
    assert [el.label for el in obs.labels] == list(range(len(obs.labels)))  # DOM order, dense
    for want in ("Overview", "Details", "Reviews", "Go to the form", "Vanishing button"):
        assert want in texts
    # cursor:pointer card is one target (not one per descendant span)
    assert sum("Clickable card" in t for t in texts) == 1
    assert not any(t == "with a span" for t in texts)
    for hidden in ("Hidden button", "Invisible link", "Zero", "Transparent", "Covered button"):
        assert hidden not in texts, hidden
    assert "Far below" not in texts  # outside the viewport
    tab = next(el for el in obs.labels if el.text == "Details")
    assert tab.role == "tab" and tab.bbox.width > 0
    assert obs.status == 200 and obs.title == "Tabs and links"
    assert "Overview panel" in obs.page_text and len(obs.page_text) <= 2000
    assert obs.state_hash == obs.compute_state_hash() != ""
    # the attribute the executor uses to find the element
    assert page.locator(f'[data-pw-label="{tab.label}"]').inner_text() == "Details"


def test_form_fields_roles_and_texts(page: Any, site: StaticServer) -> None:
    ex = _ex(page, site)
    ex.goto(site.url + "/form.html")
    obs = ex.observe()
    by_text = {el.text: el for el in obs.labels}
    assert by_text["Name"].role == "textbox" and by_text["Name"].value == ""
    assert by_text["City"].role == "combobox" and by_text["City"].value == "Choose a city"
    news = by_text["Send me the newsletter"]
    assert news.role == "checkbox" and news.checked is False and news.input_type == "checkbox"
    assert by_text["Small"].role == "radio" and by_text["Large"].role == "radio"
    assert by_text["Message"].role == "textbox"
    assert by_text["Send"].role == "button"


def test_status_403_429_and_access_signal(page: Any, site: StaticServer) -> None:
    ex = _ex(page, site)
    ex.goto(site.url + "/blocked.html")
    obs = ex.observe()
    assert obs.status == 403
    ex.goto(site.url + "/rate-limited.html")
    obs429 = ex.observe()
    assert obs429.status == 429
    ex.goto(site.url + "/index.html")
    assert ex.observe().status == 200
    try:
        import agent_runtime.guards.access  # noqa: F401
    except ImportError:
        return
    assert obs.access_signal is not None and obs429.access_signal is not None
    ex.goto(site.url + "/captcha.html")
    assert ex.observe().access_signal is not None


def test_screenshot_has_labels_drawn(page: Any, site: StaticServer, tmp_path: Path) -> None:
    ex = _ex(page, site)
    ex.goto(site.url + "/form.html")
    shot = tmp_path / "shots" / "step.png"
    obs = ex.observe(shot, screenshot_ref="shots/step.png")
    ex.flush()
    assert obs.screenshot == "shots/step.png" and shot.exists()
    labeled = Image.open(shot)
    assert labeled.format == "PNG" and labeled.size == (1024, 768)
    raw = Image.open(io.BytesIO(page.screenshot(type="png"))).convert("RGB")
    diff = ImageChops.difference(raw, labeled.convert("RGB")).getbbox()
    assert diff is not None  # label boxes changed pixels
    b = obs.labels[0].bbox  # ...and around the first label's box
    assert diff[0] <= b.x + 2 and diff[1] <= b.y + 2
    ex.close()


def test_observe_during_navigation_does_not_raise(page: Any, site: StaticServer) -> None:
    ex = _ex(page, site)
    ex.goto(site.url + "/index.html")
    # The navigation starts after evaluate returns (an evaluate that itself navigates waits for
    # it, microsoft/playwright#8570), so observe's own evaluate is the one that races it.
    page.evaluate("() => { setTimeout(() => { location.href = 'tabs.html'; }, 0); }")
    obs = ex.observe()
    assert obs.error is None or obs.url


@pytest.mark.timeout(60)
def test_a_page_closes_after_an_evaluate_raced_its_navigation(
    browser: BrowserSession, site: StaticServer
) -> None:
    # What hung clean-clone runs: page.close() straight after observe raced a navigation never
    # returned (3 of 3 runs of this test hung on it); fresh_page closes the context instead.
    urls = []
    for _ in range(20):
        with fresh_page(browser) as p:
            ex = _ex(p, site)
            ex.goto(site.url + "/index.html")
            p.evaluate("() => { setTimeout(() => { location.href = 'tabs.html'; }, 0); }")
            urls.append(ex.observe().url.rsplit("/", 1)[-1])
            ex.close()
    assert set(urls) <= {"index.html", "tabs.html"} and len(urls) == 20
