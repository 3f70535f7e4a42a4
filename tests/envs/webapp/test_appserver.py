"""The shared local web-app server: loopback binding, free port, refusal of other clients."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from envs.webapp import AppServer, LoopbackOnly, is_loopback


def _app() -> FastAPI:
    app = FastAPI()

    @app.get("/ping")
    def ping() -> dict[str, str]:
        return {"ok": "pong"}

    return app


def test_serves_on_loopback_free_port_and_stops() -> None:
    with AppServer(_app()) as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert server.port > 0
        assert httpx.get(f"{server.url}/ping").json() == {"ok": "pong"}
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{server.url}/ping", timeout=2)


def test_refuses_clients_not_on_loopback() -> None:
    app = LoopbackOnly(_app())
    far = TestClient(app, client=("10.0.0.7", 5000))
    assert far.get("/ping").status_code == 403
    near = TestClient(app, client=("127.0.0.1", 5000))
    assert near.get("/ping").status_code == 200


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("127.0.0.1", True),
        ("127.4.5.6", True),
        ("::1", True),
        ("192.168.1.2", False),
        ("testclient", False),
        (None, False),
    ],
)
def test_is_loopback(host: str | None, ok: bool) -> None:
    assert is_loopback(host) is ok
