"""Serve an ASGI application (FastAPI, Starlette) on 127.0.0.1 from a daemon thread.

The contract sites, the LMS, the catalog snapshots and the trace viewer all run through this
one class, so every local server binds the loopback interface, picks a free port, starts and
stops the same way, and refuses any client that is not on this machine.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import Any

from common.localhost import is_loopback, refusal

LOOPBACK_HOST = "127.0.0.1"


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


class AppServer:
    """Run `app` under uvicorn on 127.0.0.1 (port 0 = a free one) in a daemon thread.

    Use as a context manager; `url` is known once `start()` returns.
    """

    def __init__(self, app: Any, port: int = 0, startup_timeout: float = 20.0) -> None:
        import uvicorn

        self._config = uvicorn.Config(
            LoopbackOnly(app),
            host=LOOPBACK_HOST,
            port=port,
            log_level="warning",
            access_log=False,
            lifespan="off",
        )
        self._server = uvicorn.Server(self._config)
        self._thread: threading.Thread | None = None
        self._timeout = startup_timeout
        self.port = port
        self.url = ""

    def start(self) -> AppServer:
        if self._thread is not None:
            return self
        # uvicorn installs signal handlers only on the main thread; a thread must not.
        self._server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self._thread = threading.Thread(target=self._server.run, name="appserver", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + self._timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"server did not start on {LOOPBACK_HOST}:{self.port}")
            time.sleep(0.02)
        sock = self._server.servers[0].sockets[0]
        self.port = sock.getsockname()[1]
        self.url = f"http://{LOOPBACK_HOST}:{self.port}"
        return self

    def stop(self) -> None:
        if self._thread is None:
            return
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._thread = None

    def serve_forever(self) -> None:
        """Block until Ctrl-C (for the command-line `serve` verbs)."""
        self.start()
        try:
            while self._thread is not None and self._thread.is_alive():
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def __enter__(self) -> AppServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
