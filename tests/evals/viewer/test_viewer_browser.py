"""The viewer in a real Chromium: open a run, step with the keyboard, compare two runs.

Screenshots of every page go to artifacts/viewer/ (gitignored) for a person to look at.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.browser.launch import CHROMIUM_PATH, BrowserSession
from envs.webapp import AppServer
from evals.viewer.app import create_app
from tests.helpers.viewer_runs import append, crafted_outcomes

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM_PATH.exists(), reason=f"{CHROMIUM_PATH} missing"),
]
ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts" / "viewer"
CB = "miniwob/click-checkboxes/101@0"


@pytest.fixture
def page() -> Iterator[Any]:
    with BrowserSession(viewport={"width": 1400, "height": 900}) as b:
        yield b.page


def shoot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def visible_step(page: Any) -> str:
    return page.locator(".step.current").get_attribute("id")


def test_open_a_run_step_with_keys_and_compare(runs: Path, page: Any) -> None:
    teacher, perturbed = runs / "teacher", runs / "perturbed"
    for o in crafted_outcomes():
        append(perturbed / "traces" / "shard-0-of-1.jsonl", o.model_dump_json() + "\n")
    (perturbed / "screenshots" / "miniwob_click-checkboxes_101_0" / "step-004.png").unlink()

    with AppServer(create_app([teacher, perturbed])) as server:
        page.goto(server.url + "/")
        assert page.locator("table.rollouts tbody tr").count() == 9
        assert page.locator("text=access: captcha").count() == 1
        shoot(page, "runs")

        page.locator("#run-1 a").click()  # the perturbed run only
        assert page.locator("table.rollouts tbody tr").count() == 6
        page.get_by_role("link", name=CB).click()
        page.wait_for_url(f"**/run/1/rollout/{CB}")
        assert visible_step(page) == "step-0"
        assert page.locator("#step-1").is_hidden()
        page.keyboard.press("ArrowRight")
        assert visible_step(page) == "step-1" and page.url.endswith("#step=1")
        page.keyboard.press("j")
        page.keyboard.press("j")
        assert visible_step(page) == "step-3"
        page.keyboard.press("k")
        assert visible_step(page) == "step-2"
        page.keyboard.press("End")
        assert visible_step(page) == "step-4"
        assert page.locator("#step-4 .errors").inner_text().startswith("screenshot missing")
        shoot(page, "rollout-missing-screenshot")
        page.keyboard.press("Home")
        assert visible_step(page) == "step-0"
        assert "EfGfJJl" in page.locator("#step-0 .action").first.inner_text()
        shoot(page, "rollout")
        page.goto(server.url + f"/run/1/rollout/{CB}#step=3")  # a link to a step
        assert visible_step(page) == "step-3"
        page.keyboard.press("ArrowLeft")
        page.reload()  # a reload keeps the place
        assert visible_step(page) == "step-2"

        page.get_by_role("link", name="Compare").click()
        shoot(page, "compare-index")
        page.get_by_role("link", name="miniwob/click-checkboxes/101").click()
        page.wait_for_url("**/compare/view**")
        first = page.locator("tr.diverge")
        assert first.get_attribute("data-row") == "0" and "current" in first.get_attribute("class")
        assert "first divergence" in first.inner_text()
        page.keyboard.press("j")
        assert page.locator("tr.current").get_attribute("data-row") == "1"
        assert page.locator("img.thumb").count() == 8  # 4 + 5 steps, one screenshot missing
        shoot(page, "compare")
