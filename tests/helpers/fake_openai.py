"""A stand-in OpenAI-compatible server on 127.0.0.1 that answers from a queue of replies.

No hosted model is reachable from this machine, so the LLM top and the endpoint middle
are tested against a real HTTP server that returns canned completions.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI:
    """Serves /v1/chat/completions from a queue of replies; records every request body.

    A reply is a str (the assistant content) or an int (an HTTP error status to answer with);
    `answer`, when given, picks each reply from the request body instead of the queue.
    GET /v1/models lists `models`; with `api_key`, every route wants it, as vLLM's /v1 do.
    """

    def __init__(
        self,
        replies: list[str | int],
        models: tuple[str, ...] = (),
        api_key: str | None = None,
        answer: Callable[[dict[str, Any]], str | int] | None = None,
        usage: tuple[int, int] = (11, 7),
    ) -> None:
        self.replies = list(replies)
        self.models = list(models)
        self.api_key = api_key
        self.answer = answer
        self.usage = usage
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def _json(self, status: int, obj: Any) -> None:
                body = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _refused(self) -> bool:
                sent = self.headers.get("Authorization")
                if fake.api_key is None or sent == f"Bearer {fake.api_key}":
                    return False
                self._json(401, {"error": "Unauthorized"})
                return True

            def do_GET(self) -> None:
                if not self._refused():
                    self._json(200, {"data": [{"id": m, "root": m} for m in fake.models]})

            def do_POST(self) -> None:
                if self._refused():
                    return
                n = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(n))
                fake.requests.append(request)
                fake.headers.append(dict(self.headers))
                if fake.answer is not None:
                    reply = fake.answer(request)
                else:
                    reply = fake.replies.pop(0) if fake.replies else 500
                if isinstance(reply, int):
                    body = json.dumps({"error": {"message": "canned failure"}}).encode()
                    self.send_response(reply)
                else:
                    body = json.dumps(
                        {
                            "id": "cmpl-test",
                            "object": "chat.completion",
                            "model": "fake",
                            "choices": [
                                {
                                    "index": 0,
                                    "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": reply},
                                }
                            ],
                            "usage": {
                                "prompt_tokens": fake.usage[0],
                                "completion_tokens": fake.usage[1],
                                "total_tokens": sum(fake.usage),
                            },
                        }
                    ).encode()
                    self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @contextmanager
    def running(self) -> Iterator[FakeOpenAI]:
        t = threading.Thread(target=self.server.serve_forever, daemon=True)
        t.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()
