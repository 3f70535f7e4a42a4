"""Real-Chromium fixtures for the executor tests: the browser, a page, the local fixture sites."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_runtime.browser.launch import CHROMIUM_PATH
from envs.server import StaticServer
from tests.helpers.browser import CHROMIUM_MISSING, browser, page
from tests.helpers.local_sites import local_sites_server

__all__ = ["browser", "page", "site"]

if not CHROMIUM_PATH.exists():  # pragma: no cover - the set-up command installs it
    pytest.skip(CHROMIUM_MISSING, allow_module_level=True)


@pytest.fixture(scope="module")
def site() -> Iterator[StaticServer]:
    with local_sites_server() as server:
        yield server
