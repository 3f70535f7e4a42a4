"""The embedded API's one request guard: Host and Origin first (a loopback-bound server), then
the API key on /v1 routes; /health open; a server bound beyond loopback keeps the key check."""

from __future__ import annotations

from serving.embedded_api.guard import RequestGuard


def scope(path="/v1/models", method="GET", host="127.0.0.1:8000", key=None, origin=None):
    headers = [(b"host", host.encode())]
    if key is not None:
        headers.append((b"authorization", f"Bearer {key}".encode()))
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "http", "path": path, "method": method, "headers": headers}


def test_host_and_origin_then_key():
    guard = RequestGuard(None, host="127.0.0.1", api_key="k")
    assert guard.refusal(scope(key="k")) is None
    assert guard.refusal(scope(key=None))[0] == 401
    assert guard.refusal(scope(key="wrong"))[0] == 401
    # A DNS-rebinding page carries its own Host: refused before the key is even looked at.
    assert guard.refusal(scope(host="evil.example:8000", key="k"))[0] == 403
    post = scope("/v1/chat/completions", "POST", key="k", origin="https://evil.example")
    assert guard.refusal(post)[0] == 403
    assert guard.refusal(scope("/health")) is None


def test_no_key_configured_and_other_bindings():
    assert RequestGuard(None, host="127.0.0.1", api_key=None).refusal(scope()) is None
    wide = RequestGuard(None, host="0.0.0.0", api_key="k")
    assert wide.refusal(scope(host="gpu-node-3:8000", key="k")) is None  # reached by its name
    assert wide.refusal(scope(host="gpu-node-3:8000"))[0] == 401
    assert "Bearer" in wide.refusal(scope(host="gpu-node-3:8000", key="x"))[1]
