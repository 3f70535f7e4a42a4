"""Real-Chromium fixtures: one browser per module, a fresh page per test.

A test folder that drives pages imports them into its conftest.py
(`from tests.helpers.browser import browser, page`) and adds the server its pages come from.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agent_runtime.browser.launch import CHROMIUM_PATH, BrowserSession

__all__ = ["CHROMIUM_MISSING", "browser", "page"]

CHROMIUM_MISSING = f"{CHROMIUM_PATH} missing; run the README set-up"


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserSession]:
    with BrowserSession() as session:
        yield session


@pytest.fixture
def page(browser: BrowserSession) -> Iterator[Any]:
    p = browser.new_page()
    yield p
    p.close()
