"""The scripted user waits for a late page (a login's fetch, then navigation) before it gives up."""

from __future__ import annotations

import pytest

from contracts.observation import BBox, ElementLabel, Observation
from envs.lms.demonstrator import DemoError, Step, observe_for, step_ast


class _Pages:
    """Observations in order, the last one repeated: the login page until the app arrives."""

    def __init__(self, pages: list[Observation]) -> None:
        self.pages, self.calls = pages, 0

    def observe(self) -> Observation:
        self.calls += 1
        return self.pages[min(self.calls, len(self.pages)) - 1]

    def execute(self, ast: object) -> object:  # pragma: no cover - not called here
        return None


def _page(url: str, *links: str) -> Observation:
    box = BBox(x=0, y=0, width=10, height=10)
    return Observation(
        url=url,
        labels=[ElementLabel(label=i, role="link", text=t, bbox=box) for i, t in enumerate(links)],
    )


def test_waits_until_the_element_arrives() -> None:
    login = _page("/login")
    driver = _Pages([login, login, _page("/dashboard", "Courses", "Profile")])
    obs = observe_for(driver, Step(kind="click", text="Profile"), pause_s=0)
    assert obs.url == "/dashboard" and driver.calls == 3
    assert step_ast(obs, Step(kind="click", text="Profile")).action.target == 1


def test_gives_up_with_the_page_named() -> None:
    driver = _Pages([_page("/login")])
    obs = observe_for(driver, Step(kind="click", text="Profile"), tries=3, pause_s=0)
    assert driver.calls == 3
    with pytest.raises(DemoError, match=r"Profile.*/login"):
        step_ast(obs, Step(kind="click", text="Profile"))
