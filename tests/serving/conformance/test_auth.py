"""The API key: no key and a wrong key are refused on every /v1 route, the right key served;
/health stays open (vLLM's AuthenticationMiddleware guards /v1 alone)."""

from __future__ import annotations

import httpx
import openai
import pytest

from tests.serving.conformance.conftest import MARKS, PROMPT

pytestmark = MARKS

ROUTES = [
    ("GET", "/v1/models", None),
    ("POST", "/v1/chat/completions", {"model": "tiny", "messages": PROMPT, "max_tokens": 2}),
    ("POST", "/v1/chat/completions", {"model": "student", "messages": PROMPT, "max_tokens": 2}),
]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_no_key_wrong_key_right_key(server, method, path, body):
    for key, status in ((None, 401), ("sk-wrong", 401), (server.api_key, 200)):
        headers = {} if key is None else {"Authorization": f"Bearer {key}"}
        resp = httpx.request(method, server.root + path, json=body, headers=headers, timeout=60)
        assert resp.status_code == status, (key, resp.text)
        if status == 401:
            assert "error" in resp.json() and server.api_key not in resp.text


def test_a_key_in_another_scheme_is_refused(server):
    resp = httpx.get(f"{server.base_url}/models", headers={"Authorization": server.api_key})
    assert resp.status_code == 401


def test_health_needs_no_key(server):
    assert httpx.get(f"{server.root}/health", timeout=10).status_code == 200


def test_the_sdk_raises_authentication_error(server):
    with openai.OpenAI(base_url=server.base_url, api_key="sk-wrong", max_retries=0) as cl:
        with pytest.raises(openai.AuthenticationError):
            cl.models.list()
        with pytest.raises(openai.AuthenticationError):
            cl.chat.completions.create(model="tiny", messages=PROMPT, max_tokens=2)
