"""The scripted teacher solves MiniWoB++ tasks in headless Chromium (page raw reward 1)."""

from __future__ import annotations

import pytest

from agent_runtime.browser.launch import CHROMIUM_PATH

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM_PATH.exists(), reason=f"{CHROMIUM_PATH} missing"),
]

TASKS = [
    "click-button",
    "enter-text",
    "login-user",
    "click-checkboxes",
    "choose-list",
    "click-tab-2",
    "click-collapsible-2-nodelay",
    "focus-text-2",
]


def test_teacher_solves_tasks() -> None:
    from agent_runtime.runner.miniwob_batch import run_miniwob

    results = run_miniwob(TASKS, [100, 101, 102])
    assert set(results) == set(TASKS)
    for task, eps in results.items():
        assert [o.seed for o in eps] == [100, 101, 102]
        for o in eps:
            assert o.success and o.raw_reward == 1.0, (task, o.seed, o.terminal, o.runtime_failure)
            assert o.steps <= 20
