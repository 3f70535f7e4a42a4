"""A field the embedded server does not implement is a 400 naming it in the OpenAI error shape,
never a silent ignore; vLLM does with the same request what support.FIELDS says."""

from __future__ import annotations

import pytest

from tests.serving.conformance.conftest import MARKS, PROMPT
from tests.serving.conformance.support import FIELDS

pytestmark = MARKS


@pytest.mark.parametrize("field", FIELDS, ids=lambda f: f.param)
def test_unimplemented_field(server, http, field):
    body = {"model": "tiny", "messages": PROMPT, "max_tokens": 3, **field.example}
    resp = http.post("/v1/chat/completions", json=body)
    expected = 400 if server.name == "embedded" or field.vllm == "400" else 200
    assert resp.status_code == expected, resp.text
    if expected == 400:
        error = resp.json()["error"]
        assert set(error) == {"message", "type", "param", "code"} and error["code"] == 400
        if server.name == "embedded":
            assert error["param"] == field.param and field.param in error["message"]
    elif field.param == "n":
        assert len(resp.json()["choices"]) == 2
    elif field.param == "logprobs":
        assert resp.json()["choices"][0]["logprobs"] is not None


def test_neutral_values_are_accepted(http):
    """Asking for nothing (n 1, logprobs false, no tools...) is not refused anywhere."""
    body = {"model": "tiny", "messages": PROMPT, "max_tokens": 2, "n": 1, "logprobs": False,
            "tool_choice": "none", "presence_penalty": 0, "user": "u-1"}  # fmt: skip
    assert http.post("/v1/chat/completions", json=body).status_code == 200
