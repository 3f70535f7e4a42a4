"""Streaming: server-sent events whose deltas join to the answer the same request gets in one
piece (temperature 0), the finish reason on the last choice chunk, `data: [DONE]` at the end,
and usage when `stream_options.include_usage` asks for it."""

from __future__ import annotations

import json

import pytest

from tests.serving.conformance.conftest import MARKS, PROMPT

pytestmark = MARKS

CASES = {
    "budget": {"max_tokens": 12},
    "stop": {"max_tokens": 24, "stop": [" ", "e"]},
    "choice": {"max_tokens": 20, "extra_body": {"structured_outputs": {"choice": ["yes", "no"]}}},
}


@pytest.mark.parametrize("case", CASES)
def test_deltas_join_to_the_whole_answer(client, case):
    kw = {"model": "student", "messages": PROMPT, "temperature": 0, **CASES[case]}
    whole = client.chat.completions.create(**kw)
    chunks = list(client.chat.completions.create(**kw, stream=True))
    assert chunks and all(c.object == "chat.completion.chunk" for c in chunks)
    assert len({c.id for c in chunks}) == 1
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == whole.choices[0].finish_reason
    assert all(f is None for f in finishes[:-1])
    assert chunks[0].choices[0].delta.role == "assistant"
    assert all(c.usage is None for c in chunks)  # no usage unless asked


def test_include_usage_sends_a_last_usage_chunk(client):
    kw = {"model": "tiny", "messages": PROMPT, "temperature": 0, "max_tokens": 7}
    whole = client.chat.completions.create(**kw)
    chunks = list(
        client.chat.completions.create(**kw, stream=True, stream_options={"include_usage": True})
    )
    last = chunks[-1]
    assert last.choices == [] and last.usage is not None
    assert last.usage.prompt_tokens == whole.usage.prompt_tokens
    assert last.usage.completion_tokens == whole.usage.completion_tokens
    assert last.usage.total_tokens == whole.usage.total_tokens


def test_the_wire_is_server_sent_events_ending_in_done(http):
    body = {"model": "tiny", "messages": PROMPT, "max_tokens": 5, "stream": True}
    with http.stream("POST", "/v1/chat/completions", json=body) as resp:
        assert resp.status_code == 200
        assert resp.headers["content-type"].startswith("text/event-stream")
        events = [line for line in resp.iter_lines() if line]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]" and events.count("data: [DONE]") == 1
    for e in events[:-1]:
        assert json.loads(e.removeprefix("data: "))["object"] == "chat.completion.chunk"


def test_a_refused_stream_is_a_plain_error_before_any_event(http):
    body = {"model": "nope", "messages": PROMPT, "max_tokens": 5, "stream": True}
    resp = http.post("/v1/chat/completions", json=body)
    assert resp.status_code == 404
    assert resp.json()["error"]["code"] == 404
