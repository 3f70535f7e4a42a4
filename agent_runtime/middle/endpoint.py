"""Endpoint middle (OpenAI-compatible, e.g. vLLM): WebRider Eq. 3, Appendix H Fig. 8, Table 45.

Messages are exactly the SFT record's: the shared system prompt, then one user turn with
the labeled screenshot as an image part and `render_middle_user_text` as the text part.
The Action AST JSON Schema goes out as structured output; the reply is returned as raw
text, because the guard compiler alone decides what executes.
"""

from __future__ import annotations

import base64
from typing import Any

from agent_runtime.chat import open_client, usage_of
from agent_runtime.middle.base import MiddleInput, MiddleOutput
from agent_runtime.middle.format import PAPER, MiddleFormat, decoding_schema, echo_text
from agent_runtime.middle.grounded_schema import grounded_schema
from agent_runtime.middle.prompt import MAX_LABELS, middle_system_prompt, render_middle_user_text
from serving.client import ChatClient, ChatRequestError
from serving.endpoint import EndpointSpec


def build_messages(
    inp: MiddleInput, *, vision: bool = True, fmt: MiddleFormat = PAPER
) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if vision and inp.screenshot_png:
        b64 = base64.b64encode(inp.screenshot_png).decode("ascii")
        parts.append({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64}"}})
    parts.append({"type": "text", "text": render_middle_user_text(inp, fmt)})
    return [
        {"role": "system", "content": middle_system_prompt(fmt)},
        {"role": "user", "content": parts},
    ]


def step_schema(
    inp: MiddleInput | None = None, fmt: MiddleFormat = PAPER, *, free_text: bool = False
) -> dict[str, Any]:
    """The global Action AST schema, or with ``inp`` the step's grounded schema (with
    ``free_text``, grounded targets and any typed text)."""
    if inp is None:
        schema = decoding_schema(fmt)
    else:
        shown = {el.label: echo_text(el, fmt) for el in inp.observation.labels[:MAX_LABELS]}
        schema = grounded_schema(
            inp.top.command or inp.top.intention,
            list(shown),
            shown,
            echo=fmt.echo_label,
            free_text=free_text,
        )
    return schema


class EndpointMiddle:
    """A served model as the middle layer; `name` is the served model's name."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        vision: bool = True,
        temperature: float = 0.0,
        max_tokens: int = 256,
        grounded_schema: bool = False,
        free_text: bool = False,
        fmt: MiddleFormat = PAPER,
        client: ChatClient | None = None,
    ) -> None:
        self.client = client or open_client(
            base_url, model, api_key, timeout=timeout, retries=retries
        )
        self.name = f"endpoint:{model}"
        self.vision = vision
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.grounded_schema = grounded_schema
        self.free_text = free_text
        self.fmt = fmt

    @classmethod
    def from_env(cls, **kw: Any) -> EndpointMiddle:
        """PATHWISE_MIDDLE_BASE_URL / _MODEL / _API_KEY, falling back to OPENAI_*."""
        spec = EndpointSpec.from_env("PATHWISE_MIDDLE")
        return cls(spec.url, spec.model, spec.key(), **kw)

    def propose(self, inp: MiddleInput) -> MiddleOutput:
        try:
            reply = self.client.chat(
                build_messages(inp, vision=self.vision, fmt=self.fmt),
                json_schema=step_schema(
                    inp if self.grounded_schema else None, self.fmt, free_text=self.free_text
                ),
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                schema_name="action_ast",
            )
        except ChatRequestError as e:
            # No completion: hand the guards an empty output; they reject it with a fallback
            # and label why, so a dead endpoint is a labeled step, not a crash.
            return MiddleOutput(raw=f"<endpoint error: {e}>")
        return MiddleOutput(raw=reply.text, confidence=None, usage=usage_of(reply))
