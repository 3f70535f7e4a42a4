"""The route: FastAPI validates the body into ChatCompletionRequest (a 400 naming the field when
it does not fit); the handler on the app's state does the rest."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse

from serving.embedded_api.chat_completion.protocol import ChatCompletionRequest

router = APIRouter()


@router.post("/v1/chat/completions", response_model=None)
def create_chat_completion(
    body: ChatCompletionRequest, raw: Request
) -> JSONResponse | StreamingResponse:
    # A plain def: FastAPI runs it in its thread pool, so a long generation blocks no one else.
    return raw.app.state.chat_completions(body)
