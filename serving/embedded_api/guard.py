"""The one request guard of the embedded API: which requests reach a route at all.

Two checks, in this order, in one place (a second method of the same name once replaced the
first and silently disabled the key): bound to loopback, the Host and Origin must be this
machine's (common/localhost.py: a DNS-rebinding page or another site's form must not reach the
model); with an API key, every /v1 route wants it as a Bearer token, as vLLM's do (its
AuthenticationMiddleware: /health stays open).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from starlette.datastructures import Headers

from common.localhost import is_loopback, refusal
from serving.embedded_api.errors import error_response

GUARDED_PREFIX = "/v1"


class RequestGuard:
    """ASGI middleware: a refused request gets 403 (Host/Origin) or 401 (key), OpenAI-shaped."""

    def __init__(self, app: Any, *, host: str, api_key: str | None) -> None:
        self.app = app
        # A server bound beyond loopback was asked to be reached by other names; its key guards it.
        self.check_host = is_loopback(host)
        self._key = hashlib.sha256(api_key.encode()).digest() if api_key else None

    def refusal(self, scope: dict[str, Any]) -> tuple[int, str] | None:
        headers = Headers(scope=scope)
        if self.check_host:
            why = refusal(scope.get("method", "GET"), headers.get("host"), headers.get("origin"))
            if why is not None:
                return 403, f"forbidden: {why}"
        if self._key is None or not scope["path"].startswith(GUARDED_PREFIX):
            return None
        scheme, _, token = headers.get("authorization", "").partition(" ")
        sent = hashlib.sha256(token.encode()).digest()
        if scheme.lower() == "bearer" and hmac.compare_digest(sent, self._key):
            return None
        what = "an invalid API key was sent" if token else "no API key was sent"
        return 401, f"Unauthorized: {what} (Authorization: Bearer KEY)"

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and (refused := self.refusal(scope)) is not None:
            await error_response(*refused)(scope, receive, send)
            return
        await self.app(scope, receive, send)
