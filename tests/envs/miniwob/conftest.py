"""Real-Chromium fixtures for the MiniWoB++ tests: the browser, a page, the task server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_runtime.browser.launch import CHROMIUM_PATH
from envs.miniwob.task import MiniWoBServer
from tests.helpers.browser import CHROMIUM_MISSING, browser, page

__all__ = ["browser", "miniwob_server", "page"]

if not CHROMIUM_PATH.exists():  # pragma: no cover - the set-up command installs it
    pytest.skip(CHROMIUM_MISSING, allow_module_level=True)


@pytest.fixture(scope="module")
def miniwob_server() -> Iterator[MiniWoBServer]:
    with MiniWoBServer() as server:
        yield server
