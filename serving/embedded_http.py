"""A minimal OpenAI-compatible HTTP front for the embedded backend (stdlib only, 127.0.0.1 by
default).

Just the routes the runtime's endpoint middle, ChatClient and the offline eval use: GET /health,
GET /v1/models (with vLLM's `root` and `parent`), POST /v1/chat/completions (``response_format``
json_schema or vLLM's ``structured_outputs.json``). With an API key, every /v1 route wants it as
a Bearer token, as vLLM's do. This lets `pathwise serve --embedded` stand in for vLLM unchanged.
"""

from __future__ import annotations

import hmac
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from common.localhost import refusal
from serving.embedded import EmbeddedBackend
from serving.vllm_args import HOST, client_host


def _schema_from_request(body: dict[str, Any]) -> dict[str, Any] | None:
    rf = body.get("response_format") or {}
    if rf.get("type") == "json_schema":
        return (rf.get("json_schema") or {}).get("schema")
    so = body.get("structured_outputs") or {}
    if so.get("json") is not None:
        js = so["json"]
        return json.loads(js) if isinstance(js, str) else js
    return None


def _handler(backend: EmbeddedBackend, api_key: str | None) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _refused(self) -> bool:
            """A /v1 route without the server's key: answer 401 as vLLM does."""
            if api_key is None or not self.path.startswith("/v1"):
                return False
            sent = self.headers.get("Authorization", "")
            if hmac.compare_digest(sent.encode(), f"Bearer {api_key}".encode()):
                return False
            self._send(401, {"error": "Unauthorized"})
            return True

        def log_message(self, fmt: str, *args: Any) -> None:  # quiet: requests are many
            return

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _refused(self) -> bool:
            # A DNS-rebinding page or another site's form must not reach the model.
            why = refusal(self.command, self.headers.get("Host"), self.headers.get("Origin"))
            if why is not None:
                self._send(403, {"error": {"message": f"forbidden: {why}"}})
            return why is not None

        def do_GET(self) -> None:
            if self._refused():
                return
            if self.path == "/health":
                self._send(200, {})
            elif self.path == "/v1/models":
                self._send(200, {"object": "list", "data": backend.model_cards()})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            if self._refused():
                return
            if self.path != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                model = body.get("model") or backend.served_names()[-1]
                res = backend.chat(
                    body["messages"],
                    json_schema=_schema_from_request(body),
                    temperature=float(body.get("temperature") or 0.0),
                    max_tokens=int(
                        body.get("max_tokens") or body.get("max_completion_tokens") or 256
                    ),
                    model=model,
                    seed=body.get("seed"),
                )
            except (KeyError, ValueError, TypeError) as err:
                self._send(400, {"error": {"message": f"{type(err).__name__}: {err}"}})
                return
            except Exception as err:  # a generation failure is the server's fault: 500
                self._send(500, {"error": {"message": f"{type(err).__name__}: {err}"}})
                return
            self._send(
                200,
                {
                    "id": f"chatcmpl-{uuid.uuid4().hex}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": res.text},
                            "finish_reason": res.finish_reason,
                        }
                    ],
                    "usage": {
                        "prompt_tokens": res.usage.prompt_tokens,
                        "completion_tokens": res.usage.completion_tokens,
                        "total_tokens": res.usage.prompt_tokens + res.usage.completion_tokens,
                    },
                },
            )

    return Handler


class EmbeddedServer:
    """Serve an EmbeddedBackend on host:port in a background thread (port 0 = any free)."""

    def __init__(
        self,
        backend: EmbeddedBackend,
        port: int = 0,
        *,
        host: str = HOST,
        api_key: str | None = None,
    ) -> None:
        self.backend = backend
        self.host = host
        handler = _handler(backend, api_key)
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://{client_host(self.host)}:{self.port}/v1"

    def start(self) -> EmbeddedServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
