"""The runtime's chat call: a thin view of `serving.client.ChatClient` for the LLM top and the
endpoint middle (one OpenAI-compatible client for the whole stack, per DESIGN.md).

It adds what the runtime needs on top: environment configuration and errors that the layers
turn into labeled steps instead of crashes. The API key travels only in the Authorization
header inside the serving client and is never logged.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from agent_runtime.contracts.step_row import TokenUsage
from serving.client import ChatClient as _ServingClient
from serving.client import ChatRequestError


class ChatError(RuntimeError):
    """The endpoint could not produce a completion (after retries)."""


@dataclass(frozen=True)
class ChatReply:
    text: str
    usage: TokenUsage
    finish_reason: str | None = None


def env_config(prefix: str) -> dict[str, str | None]:
    """`{prefix}_BASE_URL / _MODEL / _API_KEY`, each falling back to `OPENAI_*`."""

    def get(name: str) -> str | None:
        return os.environ.get(f"{prefix}_{name}") or os.environ.get(f"OPENAI_{name}")

    return {"base_url": get("BASE_URL"), "model": get("MODEL"), "api_key": get("API_KEY")}


class ChatClient:
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        retries: int = 3,  # attempts in all, the first included
    ) -> None:
        if not base_url or not model:
            raise ValueError("an OpenAI-compatible endpoint needs a base URL and a model name")
        self.base_url = base_url.rstrip("/")
        self.model = model
        # Images are already decided by the caller (vision flag), so send messages as given.
        self._client = _ServingClient(
            self.base_url,
            model,
            api_key,
            timeout=timeout,
            max_retries=max(0, retries - 1),
            vision=True,
        )

    def __repr__(self) -> str:  # never show the key
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    def close(self) -> None:
        self._client.close()

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> ChatReply:
        schema = None
        if response_format is not None and response_format.get("type") == "json_schema":
            spec = response_format["json_schema"]
            schema = spec["schema"]
            self._client.schema_name = spec.get("name", "output")
        try:
            r = self._client.chat(
                messages, json_schema=schema, temperature=temperature, max_tokens=max_tokens or 512
            )
        except ChatRequestError as e:
            raise ChatError(str(e)) from None
        usage = TokenUsage(
            prompt_tokens=r.usage.prompt_tokens, completion_tokens=r.usage.completion_tokens
        )
        return ChatReply(text=r.text, usage=usage, finish_reason=r.finish_reason)
