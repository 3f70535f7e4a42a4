"""Structured outputs: every answer satisfies its constraint, on both servers, for schemas,
choices and regular expressions drawn by hypothesis (each bounded, so that even a random model
must finish inside its token budget), for `response_format` and vLLM's `structured_outputs`
alike. The checks are independent of the compiler: jsonschema, membership, Python's `re`."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.serving.conformance.conftest import MARKS, PROMPT

pytestmark = MARKS

PROPERTY = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,  # the same drawn cases on every run: a failure reproduces
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

_words = st.text("abcxyz019-_ ", min_size=1, max_size=6)
_value = st.one_of(
    st.just({"type": "boolean"}),
    st.integers(0, 500).map(lambda m: {"type": "integer", "minimum": 0, "maximum": m}),
    st.lists(_words, min_size=1, max_size=3, unique=True).map(lambda e: {"enum": e}),
    st.integers(1, 6).map(lambda n: {"type": "string", "maxLength": n}),
    st.integers(1, 2).map(lambda n: {"type": "array", "items": {"type": "boolean"}, "maxItems": n}),
)
schemas = st.dictionaries(st.from_regex(r"[a-z]{1,5}", fullmatch=True), _value,
                          min_size=1, max_size=3).map(
    lambda props: {"type": "object", "properties": props, "required": sorted(props),
                   "additionalProperties": False}
)  # fmt: skip
_atom = st.one_of(
    st.sampled_from("abcxyz019"),
    st.sampled_from(["[a-c]", "[0-9]", "[xyz]"]),
)
_piece = st.tuples(_atom, st.sampled_from(["", "?", "{1,3}", "{2}"])).map("".join)
_alternation = st.tuples(_piece, _piece).map(lambda p: f"({p[0]}|{p[1]})")
regexes = st.lists(st.one_of(_piece, _alternation), min_size=1, max_size=4).map("".join)


def create(client, **kw):
    base = {"model": "student", "messages": PROMPT, "temperature": 1.0, "seed": 0}
    return client.chat.completions.create(**(base | kw)).choices[0]


@PROPERTY
@given(schema=schemas, route=st.sampled_from(["response_format", "structured_outputs"]))
def test_json_schema(client, schema, route):
    if route == "response_format":
        fmt = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
        choice = create(client, max_tokens=300, response_format=fmt)
    else:
        choice = create(client, max_tokens=300, extra_body={"structured_outputs": {"json": schema}})
    assert choice.finish_reason == "stop", choice
    jsonschema.validate(json.loads(choice.message.content), schema)


@PROPERTY
@given(choices=st.lists(_words, min_size=1, max_size=4, unique=True))
def test_choice(client, choices):
    choice = create(client, max_tokens=40, extra_body={"structured_outputs": {"choice": choices}})
    assert choice.message.content in choices and choice.finish_reason == "stop"


@PROPERTY
@given(regex=regexes)
def test_regex(client, regex):
    choice = create(client, max_tokens=40, extra_body={"structured_outputs": {"regex": regex}})
    assert re.fullmatch(regex, choice.message.content), (regex, choice.message.content)
    assert choice.finish_reason == "stop"


GRAMMARS = {
    'start: "ab" | "cd"': r"ab|cd",
    'start: item ("," item)*\nitem: /[0-9]/': None,  # unbounded: checked as a prefix below
    "start: /[a-c]{2}/ /-/ /[0-9]{1,2}/": r"[a-c]{2}-[0-9]{1,2}",
}


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_lark_grammar(client, grammar):
    choice = create(client, max_tokens=24, extra_body={"structured_outputs": {"grammar": grammar}})
    text = choice.message.content
    pattern = GRAMMARS[grammar]
    if pattern is None:
        assert re.fullmatch(r"[0-9](,[0-9])*,?", text), text
    else:
        assert re.fullmatch(pattern, text) and choice.finish_reason == "stop", text


@pytest.mark.parametrize("route", ["response_format", "structured_outputs"])
def test_json_object(client, route):
    """Any object: unbounded, so a random model may run out of budget mid-object; an answer
    that ends is an object, and one cut short still opens one."""
    for seed in range(3):
        if route == "response_format":
            choice = create(
                client, seed=seed, max_tokens=64, response_format={"type": "json_object"}
            )
        else:
            extra = {"structured_outputs": {"json_object": True}}
            choice = create(client, seed=seed, max_tokens=64, extra_body=extra)
        text = choice.message.content
        assert text.startswith("{"), text
        if choice.finish_reason == "stop":
            assert isinstance(json.loads(text), dict)
