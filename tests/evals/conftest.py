"""A fake OpenAI-compatible server on 127.0.0.1 and a tiny SFT DatasetDict on disk."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

FB = {"type": "scroll", "target": "window", "direction": "down"}


def ast(action: dict[str, Any], fallback: dict[str, Any] | None = FB) -> str:
    obj: dict[str, Any] = {"action": action}
    if fallback is not None:
        obj["fallback"] = fallback
    return json.dumps(obj)


class FakeOpenAI:
    """Answers /v1/chat/completions from `replies[key]`, key = the `Command: <key>` line."""

    def __init__(self) -> None:
        self.replies: dict[str, tuple[int, str]] = {}
        self.bodies: list[dict[str, Any]] = []
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

            def do_GET(self) -> None:
                self._send(200, {"data": [{"id": "student"}]})

            def do_POST(self) -> None:
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


def record(key: str, target: str, image: Any) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "You are the middle."}]},
            {
                "role": "user",
                "content": [
                    {"type": "image", "text": None},
                    {"type": "text", "text": f"Command: {key}\nURL: x"},
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": target}]},
        ],
        "images": [image],
        "base_task_id": f"task-{key}",
        "rollout_id": f"r-{key}",
        "step_index": 0,
        "source_sha256": "0" * 64,
        "contract_id": f"c-{key}",
    }


def save_dataset(
    path: Path,
    split_records: dict[str, list[dict[str, Any]]],
    manifest: dict[str, Any] | None = None,
) -> Path:
    from datasets import Dataset, DatasetDict, Features, Image, List, Value

    part = {"type": Value("string"), "text": Value("string")}
    features = Features(
        {
            "messages": List({"role": Value("string"), "content": List(part)}),
            "images": List(Image()),
            "base_task_id": Value("string"),
            "rollout_id": Value("string"),
            "step_index": Value("int32"),
            "source_sha256": Value("string"),
            "contract_id": Value("string"),
        }
    )
    dd = DatasetDict(
        {name: Dataset.from_list(rows, features=features) for name, rows in split_records.items()}
    )
    dd.save_to_disk(str(path))
    if manifest is not None:
        (path / "manifest.json").write_text(json.dumps(manifest))
    return path


def png_image(color: tuple[int, int, int] = (200, 30, 30)) -> Any:
    from PIL import Image

    return Image.new("RGB", (8, 6), color)
