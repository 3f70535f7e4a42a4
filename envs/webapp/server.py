"""Serve an ASGI application (FastAPI, Starlette) on 127.0.0.1 from a daemon thread.

The contract sites, the LMS, the catalog snapshots and the trace viewer all run through this
one class, so every local server binds the loopback interface, picks a free port, starts and
stops the same way, and refuses any client that is not on this machine.
"""

from __future__ import annotations

from typing import Any

from common.asgi_server import LOOPBACK_HOST, ThreadedServer
from common.localhost import is_loopback, refusal

__all__ = ["LOOPBACK_HOST", "AppServer", "LoopbackOnly"]


class LoopbackOnly:
    """ASGI middleware answering 403 to any HTTP or websocket client not on 127.0.0.0/8 or ::1,
    to a Host header that does not name this machine (DNS rebinding), and to a state-changing
    request from another site's Origin (common/localhost.py).

    Binding to 127.0.0.1 already keeps the network out; the client check also covers an app
    mounted behind another server or bound elsewhere by mistake.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            client = scope.get("client")
            headers = {
                k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]
            }
            method = scope.get("method", "GET") if scope["type"] == "http" else "POST"
            why = (
                "this server answers 127.0.0.1 only"
                if not is_loopback(client[0] if client else None)
                else refusal(method, headers.get("host"), headers.get("origin"))
            )
            if why is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                body = f"forbidden: {why}\n".encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [
                            (b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


class AppServer(ThreadedServer):
    """Run `app` under uvicorn on 127.0.0.1 (port 0 = a free one) in a daemon thread, behind
    `LoopbackOnly`. Use as a context manager; `url` is known once `start()` returns."""

    def __init__(self, app: Any, port: int = 0, startup_timeout: float = 20.0) -> None:
        super().__init__(
            LoopbackOnly(app), port, host=LOOPBACK_HOST, startup_timeout=startup_timeout
        )
