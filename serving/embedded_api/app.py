"""The embedded API's application: its routes, its error bodies, behind its request guard."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from serving.embedded import EmbeddedBackend
from serving.embedded_api import errors
from serving.embedded_api.chat_completion.router import router as chat_router
from serving.embedded_api.chat_completion.serving import ChatCompletions
from serving.embedded_api.guard import RequestGuard
from serving.embedded_api.models.router import router as models_router


def build_app(backend: EmbeddedBackend, *, host: str, api_key: str | None) -> Any:
    """The ASGI app for `backend`, guarded for a server bound to `host` with `api_key`."""
    app = FastAPI(title="pathwise serve --embedded", docs_url=None, redoc_url=None)
    app.state.backend = backend
    app.state.chat_completions = ChatCompletions(backend)
    errors.install(app)

    @app.get("/health")
    def health() -> dict:
        return {}

    app.include_router(models_router)
    app.include_router(chat_router)
    return RequestGuard(app, host=host, api_key=api_key)
