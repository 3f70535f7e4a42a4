"""Malformed bodies get one clear 400 (or 404 for a model not served) in the OpenAI error shape,
never a 500 or a traceback, and the server goes on serving."""

from __future__ import annotations

import pytest

from tests.serving.conformance.conftest import MARKS, PROMPT

pytestmark = MARKS

OK = {"model": "tiny", "messages": PROMPT, "max_tokens": 2}
BAD = {
    "bad JSON": (b'{"model": "tiny", "messages": [', 400, None),
    "messages a string": ({**OK, "messages": "hello"}, 400, "messages"),
    "messages a number": ({**OK, "messages": 3}, 400, "messages"),
    "max_tokens a word": ({**OK, "max_tokens": "ten"}, 400, "max_tokens"),
    "max_tokens zero": ({**OK, "max_tokens": 0}, 400, "max_tokens"),
    "temperature negative": ({**OK, "temperature": -1}, 400, "temperature"),
    "stop a number": ({**OK, "stop": 5}, 400, "stop"),
    "empty messages": ({**OK, "messages": []}, 400, None),
    "empty choice": ({**OK, "structured_outputs": {"choice": []}}, 400, None),
    "two constraints": ({**OK, "structured_outputs": {"choice": ["a"], "regex": "a"}}, 400, None),
    "a regex that does not compile": ({**OK, "structured_outputs": {"regex": "(("}}, 400, None),
    "unknown model": ({**OK, "model": "nope"}, 404, "model"),
    "a budget beyond the context": ({**OK, "max_tokens": 100_000}, 400, "max_tokens"),
}


@pytest.mark.parametrize("case", BAD)
def test_one_clear_error_and_serving_goes_on(server, http, case):
    body, status, param = BAD[case]
    if isinstance(body, bytes):
        resp = http.post("/v1/chat/completions", content=body,
                         headers={"Content-Type": "application/json"})  # fmt: skip
    else:
        resp = http.post("/v1/chat/completions", json=body)
    assert resp.status_code == status, resp.text
    error = resp.json()["error"]
    assert set(error) >= {"message", "type", "param", "code"} and error["code"] == status
    assert error["message"].strip() and "Traceback" not in resp.text
    if param is not None and server.name == "embedded":
        assert error["param"] == param  # vLLM names some (as body.<field>), not all
    assert http.post("/v1/chat/completions", json=OK).status_code == 200
