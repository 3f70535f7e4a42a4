"""LLM top and endpoint middle against a local stand-in OpenAI-compatible server (127.0.0.1).

No hosted model is reachable here; the fake server returns canned completions over real
HTTP so the request bodies, retries, repair and usage accounting are exercised end to end.
"""

from __future__ import annotations

import json

from agent_runtime.middle.base import MiddleInput, MiddlePolicy
from agent_runtime.middle.endpoint import EndpointMiddle
from agent_runtime.middle.prompt import MIDDLE_SYSTEM_PROMPT, render_middle_user_text
from agent_runtime.top.base import TopLayer
from agent_runtime.top.llm_top import LLMTop
from contracts import RecentHistory, TopState, action_ast_decoding_schema
from envs.miniwob.contracts import miniwob_contract

from .helpers import FakeOpenAI, el, obs

PNG = b"\x89PNG\r\n\x1a\nfake"
VALID = json.dumps(
    {
        "decision": "browse",
        "intention": "press ok",
        "command": 'click "ok" button',
        "missing_evidence": [],
        "blockers": [],
        "expected_observation": "done",
        "answer": None,
    }
)


def _top(fake: FakeOpenAI) -> LLMTop:
    top = LLMTop(fake.base_url, "fake-top", api_key="sk-secret-test", retries=2, timeout=5)
    top.start(miniwob_contract("click-button", 1), 'Click on the "ok" button.')
    return top


def test_llm_top_valid_reply() -> None:
    with FakeOpenAI([VALID]).running() as fake:
        top = _top(fake)
        assert isinstance(top, TopLayer)
        s = top.step(obs(el(0, "button", "ok")), RecentHistory())
    assert (s.decision, s.command) == ("browse", 'click "ok" button')
    body = fake.requests[0]
    assert body["temperature"] == 0 and body["model"] == "fake-top"
    assert body["response_format"]["json_schema"]["name"] == "top_decision"
    assert fake.headers[0]["Authorization"] == "Bearer sk-secret-test"
    assert "sk-secret-test" not in repr(top.client)
    assert top.usage.prompt_tokens == 11


def test_llm_top_repairs_once() -> None:
    bad = json.dumps({"decision": "browse", "intention": "x", "command": "dance wildly"})
    with FakeOpenAI(["```json\n" + bad + "\n```", VALID]).running() as fake:
        s = _top(fake).step(obs(el(0, "button", "ok")), RecentHistory())
    assert s.command == 'click "ok" button'
    repair = fake.requests[1]["messages"]
    assert repair[-2]["role"] == "assistant" and "invalid" in repair[-1]["content"]


def test_llm_top_failure_is_a_safe_stop() -> None:
    with FakeOpenAI(["not json", '{"decision": "answer", "intention": "x"}']).running() as fake:
        s = _top(fake).step(obs(), RecentHistory())
    assert s.decision == "stop" and s.blockers[0].startswith("top_invalid_output")
    with FakeOpenAI([500, 503]).running() as fake:  # 5xx retried, then given up
        s = _top(fake).step(obs(), RecentHistory())
    assert len(fake.requests) == 2
    assert s.decision == "stop" and "HTTP 503" in s.blockers[0] and "sk-secret" not in s.blockers[0]


def test_endpoint_middle_request_and_usage() -> None:
    ast = (
        '{"action":{"type":"click","target":0},'
        '"fallback":{"type":"wait","reason":"loading","seconds":1}}'
    )
    with FakeOpenAI([500, ast]).running() as fake:  # first answer is a 5xx: retried
        mid = EndpointMiddle(fake.base_url, "fake-mid", timeout=5, retries=3)
        assert isinstance(mid, MiddlePolicy)
        inp = MiddleInput(
            top=TopState(intention="t", command='click "ok" button'),
            observation=obs(el(0, "button", "ok")),
            screenshot_png=PNG,
        )
        out = mid.propose(inp)
    assert out.raw == ast and out.usage is not None
    assert (out.usage.prompt_tokens, out.usage.completion_tokens) == (11, 7)
    body = fake.requests[-1]
    assert len(fake.requests) == 2
    rf = body["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["strict"] is True
    assert rf["json_schema"]["schema"] == action_ast_decoding_schema()
    system, user = body["messages"]
    assert system == {"role": "system", "content": MIDDLE_SYSTEM_PROMPT}
    image, text = user["content"]
    assert image["type"] == "image_url" and image["image_url"]["url"].startswith(
        "data:image/png;base64,"
    )
    assert text == {"type": "text", "text": render_middle_user_text(inp)}
    assert body["temperature"] == 0


def test_endpoint_middle_text_only_and_dead_endpoint() -> None:
    with FakeOpenAI(["{}"]).running() as fake:
        mid = EndpointMiddle(fake.base_url, "m", vision=False, timeout=5)
        mid.propose(MiddleInput(top=TopState(intention="t"), observation=obs(), screenshot_png=PNG))
    assert [p["type"] for p in fake.requests[0]["messages"][1]["content"]] == ["text"]
    mid = EndpointMiddle("http://127.0.0.1:9/v1", "m", timeout=1, retries=1)
    out = mid.propose(MiddleInput(top=TopState(intention="t"), observation=obs()))
    assert out.raw.startswith("<endpoint error") and out.usage is None
