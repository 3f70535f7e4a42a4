"""`EmbeddedServer`: the embedded API on host:port in a background thread (127.0.0.1 and a free
port by default), the in-process stand-in for a vLLM server."""

from __future__ import annotations

from common.asgi_server import ThreadedServer
from serving.embedded import EmbeddedBackend
from serving.embedded_api.app import build_app
from serving.vllm_args import HOST, client_host


class EmbeddedServer(ThreadedServer):
    """Serve an EmbeddedBackend; `base_url` is its /v1 once started."""

    def __init__(
        self,
        backend: EmbeddedBackend,
        port: int = 0,
        *,
        host: str = HOST,
        api_key: str | None = None,
    ) -> None:
        super().__init__(build_app(backend, host=host, api_key=api_key), port, host=host)
        self.backend = backend

    @property
    def base_url(self) -> str:
        return f"http://{client_host(self.host)}:{self.port}/v1"
