"""How the runtime's layers reach a served model: the one OpenAI-compatible client of serving/.

The LLM top and the endpoint middle both open their client through `serving.endpoint.EndpointSpec`,
from arguments or from `{PREFIX}_BASE_URL / _MODEL / _API_KEY` (falling back to `OPENAI_*`). The
API key travels only in the client's Authorization header and is never logged.
"""

from __future__ import annotations

from contracts.step_row import TokenUsage
from serving.client import ChatClient
from serving.endpoint import EndpointSpec
from serving.protocol import ChatResult


def open_client(
    base_url: str, model: str, api_key: str | None, *, timeout: float, retries: int
) -> ChatClient:
    """A client that sends messages as given (the caller already chose image parts or not)."""
    spec = EndpointSpec(url=base_url, model=model, api_key=api_key)
    return spec.client(timeout=timeout, max_retries=max(0, retries - 1), vision=True)


def usage_of(result: ChatResult) -> TokenUsage:
    return TokenUsage(
        prompt_tokens=result.usage.prompt_tokens, completion_tokens=result.usage.completion_tokens
    )
