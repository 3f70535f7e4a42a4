"""MiniWoB++ episodes end to end in headless Chromium, scored by the page's own reward."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agent_runtime.browser.executor import Executor
from contracts.actions import ActionAST, ClickAction, TypeAction
from envs.miniwob.task import MiniWoBServer, MiniWoBTask, available_tasks

pytestmark = pytest.mark.browser


def _quoted(goal: str) -> str:
    m = re.search(r'"([^"]*)"', goal)
    assert m, goal
    return m.group(1)


def test_available_tasks() -> None:
    names = available_tasks()
    assert len(names) > 100
    assert {"click-button", "enter-text", "click-checkboxes", "login-user"} <= set(names)
    with pytest.raises(ValueError):
        MiniWoBTask("no-such-task")


def test_click_button_right_and_wrong(page: Any, miniwob_server: MiniWoBServer) -> None:
    task = MiniWoBTask("click-button", base_url=miniwob_server.url)
    ex = Executor(page)
    for seed in (0, 1, 2):
        goal = task.setup(page, seed).goal
        obs = ex.observe()
        want = _quoted(goal)
        right = next(el.label for el in obs.labels if el.role == "button" and el.text == want)
        assert ex.execute(ActionAST(action=ClickAction(target=right))).ok
        st = task.validate(page)
        assert st.done and st.raw_reward == 1.0 and 0 < st.reward <= 1.0
    # a wrong button ends the episode with a non-positive raw reward
    for seed in range(7, 30):  # the first seed whose page shows a distractor button
        goal = task.setup(page, seed).goal
        obs = ex.observe()
        wrong = [el for el in obs.labels if el.role == "button" and el.text != _quoted(goal)]
        if wrong:
            break
    ex.execute(ActionAST(action=ClickAction(target=wrong[0].label)))
    st = task.validate(page)
    assert st.done and st.raw_reward <= 0
    task.teardown(page)


def test_enter_text_type_then_submit(page: Any, miniwob_server: MiniWoBServer) -> None:
    task = MiniWoBTask("enter-text", base_url=miniwob_server.url)
    ex = Executor(page)
    goal = task.setup(page, 3).goal
    obs = ex.observe()
    box = next(el.label for el in obs.labels if el.role == "textbox")
    submit = next(el.label for el in obs.labels if el.text == "Submit")
    assert ex.execute(ActionAST(action=TypeAction(target=box, text=_quoted(goal)))).ok
    assert not task.validate(page).done
    ex.execute(ActionAST(action=ClickAction(target=submit)))
    assert task.validate(page).raw_reward == 1.0


def test_checkbox_labels_carry_their_text(page: Any, miniwob_server: MiniWoBServer) -> None:
    task = MiniWoBTask("click-checkboxes", base_url=miniwob_server.url)
    ex = Executor(page)
    goal = task.setup(page, 5).goal
    obs = ex.observe()
    boxes = [el for el in obs.labels if el.role == "checkbox"]
    assert boxes and all(el.text for el in boxes)
    wanted = [el for el in boxes if el.text in goal]
    for el in wanted:
        ex.execute(ActionAST(action=ClickAction(target=el.label)))
    submit = next(el.label for el in obs.labels if el.text == "Submit")
    ex.execute(ActionAST(action=ClickAction(target=submit)))
    assert task.validate(page).raw_reward == 1.0


@pytest.mark.parametrize("reuse", [True, False])
def test_same_seed_same_utterance(page: Any, miniwob_server: MiniWoBServer, reuse: bool) -> None:
    task = MiniWoBTask("click-button", base_url=miniwob_server.url, reuse_page=reuse)
    a = [task.setup(page, s).goal for s in (11, 12, 11)]
    assert a[0] == a[2]
    other = MiniWoBTask("click-button", base_url=miniwob_server.url, reuse_page=not reuse)
    assert other.setup(page, 11).goal == a[0]
    st = task.validate(page)
    assert not st.done and st.raw_reward == 0.0
    assert task.site_key() == "miniwob/click-button"
