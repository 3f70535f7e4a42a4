"""How the runtime's layers reach a served model: the one OpenAI-compatible client of serving/.

The LLM top and the endpoint middle both open `serving.client.ChatClient` here, from arguments
or from `{PREFIX}_BASE_URL / _MODEL / _API_KEY` (falling back to `OPENAI_*`). The API key
travels only in the client's Authorization header and is never logged.
"""

from __future__ import annotations

import os

from contracts.step_row import TokenUsage
from serving.client import ChatClient
from serving.protocol import ChatResult


def env_config(prefix: str) -> dict[str, str | None]:
    """`{prefix}_BASE_URL / _MODEL / _API_KEY`, each falling back to `OPENAI_*`."""

    def get(name: str) -> str | None:
        return os.environ.get(f"{prefix}_{name}") or os.environ.get(f"OPENAI_{name}")

    return {"base_url": get("BASE_URL"), "model": get("MODEL"), "api_key": get("API_KEY")}


def open_client(
    base_url: str, model: str, api_key: str | None, *, timeout: float, retries: int
) -> ChatClient:
    """A client that sends messages as given (the caller already chose image parts or not)."""
    if not base_url or not model:
        raise ValueError("an OpenAI-compatible endpoint needs a base URL and a model name")
    return ChatClient(
        base_url, model, api_key, timeout=timeout, max_retries=max(0, retries - 1), vision=True
    )


def usage_of(result: ChatResult) -> TokenUsage:
    return TokenUsage(
        prompt_tokens=result.usage.prompt_tokens, completion_tokens=result.usage.completion_tokens
    )
