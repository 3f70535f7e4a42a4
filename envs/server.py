"""Static file server on 127.0.0.1 for MiniWoB++ pages and the local fixture sites."""

from __future__ import annotations

import functools
import io
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar

from common.localhost import refusal


class _Handler(SimpleHTTPRequestHandler):
    # Overridden per server by a subclass that StaticServer builds.
    status_routes: ClassVar[dict[str, int]] = {}

    def log_message(self, format: str, *args: Any) -> None:
        return  # quiet: one line per request would swamp test and benchmark output

    def end_headers(self) -> None:
        # Fixtures change between runs; a cached page would hide that.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def _refused(self) -> bool:
        """403 for a Host or Origin that is not this machine (common/localhost.py)."""
        why = refusal(self.command, self.headers.get("Host"), self.headers.get("Origin"))
        if why is None:
            return False
        self.send_error(403, f"forbidden: {why}")
        return True

    def send_head(self) -> Any:
        if self._refused():
            return None
        path = self.path.split("?", 1)[0]
        code = self.status_routes.get(path)
        if code is None:
            return super().send_head()
        # Serve the page body with a forced status, e.g. a 403/429 page for access signals.
        body = self._read_body(path)
        self.send_response(code)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def _read_body(self, path: str) -> bytes:
        file = Path(self.translate_path(path))
        return file.read_bytes() if file.is_file() else f"<h1>{path}</h1>".encode()

    def do_POST(self) -> None:
        # Forms in the fixtures post here; the reply echoes the size so tests can see it.
        if self._refused():
            return
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n) if n else b""
        body = (
            "<html><head><title>Received</title></head><body>"
            f"<h1>Received</h1><p id='bytes'>{len(data)} bytes posted to {self.path}</p>"
            "</body></html>"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class StaticServer:
    """Serve `root` on 127.0.0.1 at a free port from a daemon thread (a context manager).

    `status_routes` maps URL paths to a forced HTTP status (the file's body is still sent).
    """

    def __init__(self, root: Path | str, status_routes: dict[str, int] | None = None) -> None:
        self.root = Path(root)
        handler = type("Handler", (_Handler,), {"status_routes": dict(status_routes or {})})
        self._httpd = ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(handler, directory=str(self.root))
        )
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread: threading.Thread | None = None

    def start(self) -> StaticServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, name=f"static:{self.port}", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> StaticServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
