"""Grounded per-step decoding schema: visible labels and the command's typed text."""

from __future__ import annotations

import itertools
import json

import pytest

from agent_runtime.middle.base import MiddleInput
from agent_runtime.middle.endpoint import EndpointMiddle
from agent_runtime.middle.grounded_schema import (
    grounded_schema,
    grounded_schema_from_text,
    typed_texts,
)
from agent_runtime.middle.prompt import render_middle_user_text
from contracts import ActionAST, TopState
from contracts.command import quoted_strings
from serving.batch import chat_many
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.observations import el, obs


def _alts(schema: dict) -> dict[str, dict]:
    return {a["properties"]["type"]["const"]: a for a in schema["properties"]["action"]["anyOf"]}


def test_quoted_strings_unescape_and_dedupe() -> None:
    cmd = 'type "say \\"hi\\"" into "Name" textbox'
    assert quoted_strings(cmd) == ['say "hi"', "Name"]
    assert quoted_strings('click "a" then "a"') == ["a"]
    assert quoted_strings("scroll down") == []


def test_typed_texts_follow_the_command_grammar() -> None:
    assert typed_texts('type "x y" into "Name" textbox #2') == ["x y"]
    assert typed_texts('select "Canada" in combobox') == ["Canada"]
    # Grammar verbs without a payload enter no text; outside the grammar the quotes are choices.
    assert typed_texts('check "a"') == typed_texts("submit") == []
    assert typed_texts('click "a" then "b"') == ["a", "b"]
    assert typed_texts("") is None and typed_texts("fill in the form") is None


def test_schema_narrows_targets_and_text() -> None:
    s = grounded_schema('type "bob" into "Username" textbox', [4, 1, 1])
    alts = _alts(s)
    assert alts["click"]["properties"]["target"] == {"enum": [1, 4]}
    assert alts["type"]["properties"]["target"] == {"enum": [1, 4]}
    # The grammar's payload is the text: the field's name is never typed into it.
    assert alts["type"]["properties"]["text"] == {"enum": ["bob"]}
    # Without a payload every quoted string stays a choice.
    no_payload = _alts(grounded_schema('click "a" then "b"', [0]))
    assert no_payload["type"]["properties"]["text"] == {"enum": ["a", "b"]}
    scroll = alts["scroll"]["properties"]["target"]["anyOf"]
    assert {"const": "window"} in scroll and {"enum": [1, 4]} in scroll
    # The fallback keeps the global schema's safe alternatives.
    assert s["properties"]["fallback"] == grounded_schema("", [])["properties"]["fallback"]


def test_every_admitted_choice_is_a_valid_action_ast() -> None:
    s = grounded_schema('click "bob" then "Username" textbox', [0, 2])
    t = _alts(s)["type"]["properties"]
    for target, text, submit in itertools.product(t["target"]["enum"], t["text"]["enum"], [1, 0]):
        doc = {"action": {"type": "type", "target": target, "text": text, "submit": bool(submit)}}
        assert ActionAST.model_validate(doc).action.text == text


def test_provider_steps_send_the_top_layers_query() -> None:
    maps = _alts(grounded_schema('maps "coffee shop" near "Old Town"', [2]))
    assert maps["maps"]["properties"]["query"] == {"enum": ["coffee shop"]}
    assert maps["maps"]["properties"]["location"] == {"enum": ["Old Town"]}
    assert maps["search"]["properties"]["query"] == {"enum": ["coffee shop"]}
    search = _alts(grounded_schema('search "27 inch 4k monitor"', []))
    assert search["search"]["properties"]["query"] == {"enum": ["27 inch 4k monitor"]}
    assert search["maps"]["properties"]["location"] == {"type": "null"}
    doc = {"action": {"type": "maps", "query": "coffee shop", "location": "Old Town"}}
    assert ActionAST.model_validate(doc).action.query == "coffee shop"
    # Any other command leaves the query free, as the global schema has it.
    free = _alts(grounded_schema('click "Next"', [0]))["search"]["properties"]["query"]
    assert free.get("type") == "string" and "enum" not in free


def test_no_labels_drops_target_actions_and_no_quotes_leaves_text_free() -> None:
    alts = _alts(grounded_schema("scroll down", []))
    assert "click" not in alts and "type" not in alts
    assert alts["scroll"]["properties"]["target"] == {"anyOf": [{"const": "window"}]}
    free = _alts(grounded_schema("fill in the form", [0]))["type"]["properties"]["text"]
    assert free.get("type") == "string" and "enum" not in free
    # A grammar command that enters no text leaves no `type` to decode, echoed or not.
    for cmd in ("submit", "focus textbox #1", 'check "a"', 'click "OK" button'):
        assert set(_alts(grounded_schema(cmd, [0, 1]))) >= {"click", "scroll"}
        assert "type" not in _alts(grounded_schema(cmd, [0, 1]))
        assert "type" not in _alts(grounded_schema(cmd, [0, 1], {0: "OK", 1: ""}, echo=True))


def test_schema_from_rendered_text_matches_the_input() -> None:
    inp = MiddleInput(
        top=TopState(intention="log in", command='type "x\\"y" into "Password" textbox'),
        observation=obs(el(0, "textbox", "Username"), el(3, "textbox", "Password")),
    )
    text = render_middle_user_text(inp)
    assert grounded_schema_from_text(text) == grounded_schema(inp.top.command, [0, 3])


def test_endpoint_middle_sends_the_grounded_schema() -> None:
    ast = (
        '{"action":{"type":"click","target":2},'
        '"fallback":{"type":"wait","reason":"loading","seconds":1}}'
    )
    inp = MiddleInput(
        top=TopState(intention="t", command='click "ok" button'),
        observation=obs(el(0, "button", "cancel"), el(2, "button", "ok")),
    )
    with FakeOpenAI([ast, ast]).running() as fake:
        EndpointMiddle(fake.base_url, "m", timeout=5, grounded_schema=True).propose(inp)
        EndpointMiddle(fake.base_url, "m", timeout=5).propose(inp)
    grounded = fake.requests[0]["response_format"]["json_schema"]["schema"]
    assert _alts(grounded)["click"]["properties"]["target"] == {"enum": [0, 2]}
    plain = fake.requests[1]["response_format"]["json_schema"]["schema"]
    assert _alts(plain)["click"]["properties"]["target"]["type"] == "integer"


class _Echo:
    def __init__(self) -> None:
        self.seen: list[dict | None] = []

    def chat(self, messages, json_schema=None, temperature=0.0, max_tokens=256):
        from serving.protocol import ChatResult

        self.seen.append(json_schema)
        return ChatResult(text=json.dumps(json_schema))


def test_chat_many_takes_one_schema_per_conversation() -> None:
    backend = _Echo()
    convs = [[{"role": "user", "content": str(i)}] for i in range(3)]
    schemas = [{"i": i} for i in range(3)]
    items = chat_many(backend, convs, json_schema=schemas, concurrency=1, progress=False)
    assert [json.loads(it.result.text) for it in items] == schemas
    with pytest.raises(ValueError, match="2 schemas for 3 conversations"):
        chat_many(backend, convs, json_schema=schemas[:2], progress=False)
