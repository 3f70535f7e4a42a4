"""Minimal OpenAI-compatible chat-completions client shared by the LLM top and the endpoint middle.

One POST to `{base_url}/chat/completions` over httpx, bounded tenacity retries on transport
errors, timeouts and 5xx/429, token usage returned with the text. The API key travels only
in the Authorization header and is never logged or put in an exception message. (The
serving package will later provide the shared client; this module is its stand-in.)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import httpx
from tenacity import (
    retry,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from agent_runtime.contracts.step_row import TokenUsage


class ChatError(RuntimeError):
    """The endpoint could not produce a completion (after retries)."""


@dataclass(frozen=True)
class ChatReply:
    text: str
    usage: TokenUsage
    finish_reason: str | None = None


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, httpx.TransportError):  # connect/read errors and timeouts
        return True
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code >= 500 or exc.response.status_code == 429
    return False


def env_config(prefix: str) -> dict[str, str | None]:
    """base_url / model / api_key from PREFIX_* variables, falling back to OPENAI_*."""

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
        retries: int = 3,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url or not model:
            raise ValueError("an OpenAI-compatible endpoint needs a base URL and a model name")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.retries = max(1, retries)
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = httpx.Client(timeout=timeout, headers=headers, transport=transport)

    def __repr__(self) -> str:  # never show the key
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    def close(self) -> None:
        self._http.close()

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> ChatReply:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": temperature,
        }
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if response_format is not None:
            body["response_format"] = response_format
        try:
            data = self._post(body)
        except httpx.HTTPStatusError as e:
            raise ChatError(f"endpoint answered HTTP {e.response.status_code}") from None
        except httpx.HTTPError as e:
            raise ChatError(f"endpoint unreachable: {type(e).__name__}") from None
        try:
            choice = data["choices"][0]
            text = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ChatError("endpoint reply has no choices[0].message") from None
        u = data.get("usage") or {}
        usage = TokenUsage(
            prompt_tokens=int(u.get("prompt_tokens") or 0),
            completion_tokens=int(u.get("completion_tokens") or 0),
        )
        return ChatReply(text=text, usage=usage, finish_reason=choice.get("finish_reason"))

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        @retry(
            retry=retry_if_exception(_retryable),
            stop=stop_after_attempt(self.retries),
            wait=wait_exponential(multiplier=0.2, max=2.0),
            reraise=True,
        )
        def once() -> dict[str, Any]:
            r = self._http.post(f"{self.base_url}/chat/completions", json=body)
            r.raise_for_status()
            out: dict[str, Any] = r.json()
            return out

        try:
            return once()
        except ValueError:  # body was not JSON
            raise ChatError("endpoint reply is not JSON") from None
