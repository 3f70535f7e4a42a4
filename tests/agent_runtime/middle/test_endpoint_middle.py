"""The endpoint middle against a local stand-in OpenAI-compatible server (127.0.0.1).

No hosted model is reachable here; the fake server returns canned completions over real
HTTP so the request bodies, retries and usage accounting are exercised end to end.
"""

from __future__ import annotations

from agent_runtime.middle.base import MiddleInput, MiddleOutput, MiddlePolicy
from agent_runtime.middle.endpoint import EndpointMiddle
from agent_runtime.middle.prompt import MIDDLE_SYSTEM_PROMPT, render_middle_user_text
from contracts import TopState, action_ast_decoding_schema
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.observations import el, obs
from tests.helpers.protocols import assert_implements

PNG = b"\x89PNG\r\n\x1a\nfake"


def test_endpoint_middle_request_and_usage() -> None:
    ast = (
        '{"action":{"type":"click","target":0},'
        '"fallback":{"type":"wait","reason":"loading","seconds":1}}'
    )
    with FakeOpenAI([500, ast]).running() as fake:  # first answer is a 5xx: retried
        mid = EndpointMiddle(fake.base_url, "fake-mid", timeout=5, retries=3)
        assert_implements(mid, MiddlePolicy)
        inp = MiddleInput(
            top=TopState(intention="t", command='click "ok" button'),
            observation=obs(el(0, "button", "ok")),
            screenshot_png=PNG,
        )
        out = mid.propose(inp)
    assert isinstance(out, MiddleOutput)
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
