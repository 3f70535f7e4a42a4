"""A fake OpenAI-compatible server on 127.0.0.1 that answers by the request's `Command:` line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.fake_openai import FakeOpenAI


class CommandKeyedOpenAI:
    """Answers /v1/chat/completions from `replies[key]`, key = the `Command: <key>` line;
    `(status, text)`, and "{}" for a command with no reply set."""

    def __init__(self) -> None:
        self.replies: dict[str, tuple[int, str]] = {}
        self.server = FakeOpenAI([], models=("student",), answer=self._answer, usage=(10, 5))

    def _answer(self, body: dict[str, Any]) -> str | int:
        user = body["messages"][-1]["content"]
        if isinstance(user, list):
            user = "".join(p.get("text", "") for p in user if p["type"] == "text")
        status, text = self.replies.get(re.search(r"Command: (\S+)", user).group(1), (200, "{}"))
        return text if status == 200 else status

    @property
    def url(self) -> str:
        return self.server.base_url

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return self.server.requests

    @property
    def api_key(self) -> str | None:
        return self.server.api_key

    @api_key.setter
    def api_key(self, key: str | None) -> None:
        self.server.api_key = key


@pytest.fixture
def fake_openai() -> Iterator[CommandKeyedOpenAI]:
    srv = CommandKeyedOpenAI()
    with srv.server.running():
        yield srv
