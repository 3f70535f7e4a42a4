"""Run an ASGI application (FastAPI, Starlette) under uvicorn in a daemon thread.

Every server Pathwise starts in-process (the local web apps, the embedded model server) starts,
reports its port and stops the same way. Binding is the caller's choice; 127.0.0.1 by default.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import Any, Self

LOOPBACK_HOST = "127.0.0.1"


class ThreadedServer:
    """`app` on host:port (port 0 = a free one); use as a context manager. `port` and `url` are
    known once `start()` returns."""

    def __init__(
        self, app: Any, port: int = 0, *, host: str = LOOPBACK_HOST, startup_timeout: float = 20.0
    ) -> None:
        import uvicorn

        self._config = uvicorn.Config(
            app, host=host, port=port, log_level="warning", access_log=False, lifespan="off"
        )
        self._server = uvicorn.Server(self._config)
        self._thread: threading.Thread | None = None
        self._timeout = startup_timeout
        self.host = host
        self.port = port
        self.url = ""

    def start(self) -> Self:
        if self._thread is not None:
            return self
        # uvicorn installs signal handlers only on the main thread; a thread must not.
        self._server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self._thread = threading.Thread(target=self._server.run, name="asgi", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + self._timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"server did not start on {self.host}:{self.port}")
            time.sleep(0.02)
        sock = self._server.servers[0].sockets[0]
        self.port = sock.getsockname()[1]
        self.url = f"http://{self.host}:{self.port}"
        return self

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

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
            while self.alive():
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
