"""The LLM top against a local stand-in OpenAI-compatible server (127.0.0.1).

No hosted model is reachable here; the fake server returns canned completions over real
HTTP so the request bodies, retries, repair and usage accounting are exercised end to end.
"""

from __future__ import annotations

import json

from agent_runtime.top.base import TopLayer
from agent_runtime.top.llm_top import LLMTop
from contracts import RecentHistory, TopState
from envs.miniwob.contracts import miniwob_contract
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.observations import el, obs
from tests.helpers.protocols import assert_implements

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
        assert_implements(top, TopLayer)
        s = top.step(obs(el(0, "button", "ok")), RecentHistory())
    assert isinstance(s, TopState)
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
