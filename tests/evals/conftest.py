"""A fake OpenAI-compatible server on 127.0.0.1 that answers by the request's `Command:` line."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


class FakeOpenAI:
    """Answers /v1/chat/completions from `replies[key]`, key = the `Command: <key>` line."""

    def __init__(self) -> None:
        self.replies: dict[str, tuple[int, str]] = {}
        self.bodies: list[dict[str, Any]] = []
        self.api_key: str | None = None  # when set, every route wants it, as vLLM's /v1 do
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:  # keep pytest output clean
                pass

            def _send(self, status: int, obj: Any) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _refused(self) -> bool:
                want = f"Bearer {fake.api_key}"
                if fake.api_key is None or self.headers.get("Authorization") == want:
                    return False
                self._send(401, {"error": "Unauthorized"})
                return True

            def do_GET(self) -> None:
                if not self._refused():
                    self._send(200, {"data": [{"id": "student"}]})

            def do_POST(self) -> None:
                if self._refused():
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.bodies.append(body)
                user = body["messages"][-1]["content"]
                if isinstance(user, list):
                    user = "".join(p.get("text", "") for p in user if p["type"] == "text")
                key = re.search(r"Command: (\S+)", user).group(1)
                status, text = fake.replies.get(key, (200, "{}"))
                if status != 200:
                    self._send(status, {"error": {"message": "bad request"}})
                    return
                self._send(
                    200,
                    {
                        "model": body["model"],
                        "choices": [
                            {
                                "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5},
                    },
                )

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_openai():
    srv = FakeOpenAI()
    yield srv
    srv.close()
