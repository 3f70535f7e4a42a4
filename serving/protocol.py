"""The chat protocol every served middle speaks: OpenAI chat messages in, text + usage out.

serving/ never imports agent_runtime (docs/architecture.md): callers hand in plain chat messages
and any JSON Schema (the runtime passes the Action AST decoding schema), so a vLLM endpoint, a
hosted API and the embedded backend are interchangeable behind one ``ChatBackend`` protocol.
"""

from __future__ import annotations

import base64
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

Message = dict[str, Any]


class Usage(BaseModel):
    """Token counts of one call; same field names as the runtime's TokenUsage (step row)."""

    model_config = ConfigDict(extra="forbid")
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatResult(BaseModel):
    """One completion: the raw text (the guards parse it, not us), usage and wall latency."""

    model_config = ConfigDict(extra="forbid")
    text: str
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    finish_reason: str | None = None
    model: str | None = None


@runtime_checkable
class ChatBackend(Protocol):
    """What the runtime's endpoint middle and the offline eval call; both backends implement it."""

    def chat(
        self,
        messages: list[Message],
        json_schema: dict[str, Any] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 256,
    ) -> ChatResult: ...


def png_data_url(png: bytes) -> str:
    """A screenshot as the data URL OpenAI-style servers (vLLM included) accept in image parts."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def build_messages(
    user_text: str,
    system: str | None = None,
    screenshot_png: bytes | None = None,
    vision: bool = False,
) -> list[Message]:
    """System + user messages; the screenshot becomes an image part only for a VL model.

    A text student never sees pixels (its prompt carries the visible-label table instead), so
    the image is dropped rather than sent to a server that would reject the part.
    """
    messages: list[Message] = []
    if system:
        messages.append({"role": "system", "content": system})
    if vision and screenshot_png is not None:
        content: Any = [
            {"type": "image_url", "image_url": {"url": png_data_url(screenshot_png)}},
            {"type": "text", "text": user_text},
        ]
    else:
        content = user_text
    messages.append({"role": "user", "content": content})
    return messages


def drop_images(messages: list[Message]) -> list[Message]:
    """Text-only copy of ``messages``: image parts removed, remaining text parts joined.

    Text models' chat templates expect string content; SFT records and VL prompts carry parts.
    """
    out: list[Message] = []
    for msg in messages:
        content = msg.get("content")
        if isinstance(content, list):
            texts = [p.get("text", "") for p in content if p.get("type") == "text"]
            content = "\n".join(t for t in texts if t)
        out.append({**msg, "content": content})
    return out


def has_images(messages: list[Message]) -> bool:
    """True when any message carries an image part (OpenAI ``image_url`` or TRL ``image``)."""
    for msg in messages:
        content = msg.get("content")
        if isinstance(content, list) and any(
            p.get("type") in {"image_url", "image"} for p in content
        ):
            return True
    return False
