"""Real-Chromium fixtures: one browser per module, a fresh page (in its own context) per test.

A test folder that drives pages imports them into its conftest.py
(`from tests.helpers.browser import browser, page`) and adds the server its pages come from.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from agent_runtime.browser.launch import CHROMIUM_PATH, BrowserSession

__all__ = ["CHROMIUM_MISSING", "browser", "fresh_page", "page"]

CHROMIUM_MISSING = f"{CHROMIUM_PATH} missing; run the README set-up"


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserSession]:
    with BrowserSession() as session:
        yield session


@contextmanager
def fresh_page(session: BrowserSession) -> Iterator[Any]:
    """A page in a new context of `session`'s browser, closed by closing that context.

    Closing the page itself can wait forever: `page.close()` right after an evaluate failed
    with "Execution context was destroyed" (a navigation the page scheduled landed inside it)
    never returns with Playwright 1.64/1.65 and Chromium 156 (reproduced in a few tries; the
    page never reports closed). Closing the context returns, and it is what the runner does
    (BrowserSession.close); a context per test also keeps cookies and storage apart.
    """
    ctx = session.browser.new_context(viewport=session.viewport)
    try:
        yield ctx.new_page()
    finally:
        ctx.close()


@pytest.fixture
def page(browser: BrowserSession) -> Iterator[Any]:
    with fresh_page(browser) as p:
        yield p
