"""One served model as every caller names it: the endpoint URL, the model and the API key.
Validated once, checked once before any work starts (reachable, the key accepted, the model
served), and the one place a `ChatClient` is opened from.

Whether the model takes images is read from the served model's own config: vLLM's `/v1/models`
names each model's `root` (a local folder or a hub id; for a LoRA module, its parent's), and
`base_models.model_info` reads that config locally or from the Hugging Face cache.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from base_models.model_info import is_vision_model
from serving.client import ChatClient, auth_error, check_url

log = logging.getLogger(__name__)


class EndpointError(ValueError):
    """An endpoint that cannot be used: unreachable, or not serving the model asked for."""


class EndpointSpec(BaseModel):
    """A model behind an OpenAI-compatible endpoint. The key never appears in a dump or repr."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    url: str = Field(description="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    model: str = Field(min_length=1, description="served model or LoRA module name")
    api_key: SecretStr | None = Field(default=None, exclude=True, repr=False)

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        return check_url(v)

    @classmethod
    def from_env(cls, prefix: str, **kw: Any) -> EndpointSpec:
        """`{prefix}_BASE_URL / _MODEL / _API_KEY`, each falling back to `OPENAI_*`."""

        def get(name: str) -> str | None:
            return os.environ.get(f"{prefix}_{name}") or os.environ.get(f"OPENAI_{name}")

        url, model = get("BASE_URL"), get("MODEL")
        if not url or not model:
            raise ValueError(
                f"an OpenAI-compatible endpoint needs {prefix}_BASE_URL and {prefix}_MODEL "
                "(or OPENAI_BASE_URL and OPENAI_MODEL)"
            )
        return cls(url=url, model=model, api_key=get("API_KEY"), **kw)

    def key(self) -> str | None:
        return self.api_key.get_secret_value() if self.api_key else None

    def client(
        self,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        vision: bool = True,
        schema_name: str = "output",
    ) -> ChatClient:
        """A client for this model; `vision=False` strips image parts from what it sends."""
        return ChatClient(
            self.url,
            self.model,
            self.key(),
            timeout=timeout,
            max_retries=max_retries,
            vision=vision,
            schema_name=schema_name,
        )

    def model_cards(self, timeout: float = 10.0) -> list[dict[str, Any]]:
        """`/v1/models`; a refused key or an unreachable server raises."""
        headers = {"Authorization": f"Bearer {self.key()}"} if self.api_key else {}
        try:
            resp = httpx.get(f"{self.url}/models", headers=headers, timeout=timeout)
        except httpx.HTTPError as e:
            raise EndpointError(f"{self.url}: unreachable ({type(e).__name__}: {e})") from None
        if resp.status_code in (401, 403):
            raise auth_error(self.url, resp.status_code, self.api_key is not None)
        resp.raise_for_status()
        return list(resp.json().get("data", []))

    def check(self, timeout: float = 10.0) -> list[str]:
        """Before any work: the server answers, accepts the key and serves `model`."""
        try:
            cards = self.model_cards(timeout)
        except httpx.HTTPStatusError as e:  # a server without /models: the calls will say
            log.warning("could not list models at %s: %s", self.url, e)
            return []
        served = [str(c.get("id")) for c in cards]
        if self.model not in served:
            raise EndpointError(
                f"{self.url} does not serve model {self.model!r} (it serves {served})"
            )
        return served

    def served_vision(self, timeout: float = 10.0) -> bool | None:
        """Whether the served model takes images, from its config; None where it cannot be read
        (no `root` on /v1/models, or a root neither here nor in the Hugging Face cache)."""
        try:
            cards = {str(c.get("id")): c for c in self.model_cards(timeout)}
        except (EndpointError, httpx.HTTPError):
            return None
        card = cards.get(self.model)
        if card is not None and card.get("parent") in cards:  # a LoRA module: its base decides
            card = cards[card["parent"]]
        root = (card or {}).get("root")
        return is_vision_model(root, missing=None) if root else None
