"""Shared fixtures for real-Chromium tests: one browser per module, a fresh page per test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agent_runtime.browser.launch import CHROMIUM_PATH, BrowserSession
from envs.miniwob.task import MiniWoBServer
from envs.server import StaticServer
from tests.helpers.local_sites import local_sites_server

if not CHROMIUM_PATH.exists():  # pragma: no cover - the set-up command installs it
    pytest.skip(f"{CHROMIUM_PATH} missing; run the README set-up", allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserSession]:
    with BrowserSession() as session:
        yield session


@pytest.fixture
def page(browser: BrowserSession) -> Iterator[Any]:
    p = browser.new_page()
    yield p
    p.close()


@pytest.fixture(scope="module")
def site() -> Iterator[StaticServer]:
    with local_sites_server() as server:
        yield server


@pytest.fixture(scope="module")
def miniwob_server() -> Iterator[MiniWoBServer]:
    with MiniWoBServer() as server:
        yield server
