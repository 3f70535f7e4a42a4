"""POST /v1/chat/completions on the embedded backend: one answer as a chat.completion, or as
server-sent chat.completion.chunk events ending in `data: [DONE]`, in vLLM's shapes.

Everything that can be refused is refused before the first token (a streamed refusal would
arrive with status 200 already sent): the fields, the model, the constraint, the token budget.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from fastapi.responses import JSONResponse, StreamingResponse

from serving.embedded import EmbeddedBackend, ModelNotServed, RequestRefused
from serving.embedded_api.chat_completion.protocol import ChatCompletionRequest
from serving.embedded_api.errors import APIError, error_body
from serving.generation import Generation


class ChatCompletions:
    """The handler; one per server, over one backend."""

    def __init__(self, backend: EmbeddedBackend) -> None:
        self.backend = backend

    def start(self, req: ChatCompletionRequest) -> tuple[str, Generation]:
        """Validate and start generating; APIError (400/404) for anything refused."""
        if (field := req.refused_field()) is not None:
            raise APIError(400, f"unsupported field {field!r}: not implemented by this server "
                           "(pathwise serve --embedded); see docs/serving.md", field)  # fmt: skip
        try:
            constraint = req.constraint()
        except ValueError as err:
            raise APIError(400, str(err), "structured_outputs") from err
        model = req.model or self.backend.base_name  # vLLM: no model names the base
        messages = [m.model_dump(exclude_none=True) for m in req.messages]
        try:
            gen = self.backend.generate(
                messages,
                constraint,
                temperature=req.temperature,
                top_p=req.top_p,
                top_k=req.top_k,
                max_tokens=req.token_budget(),
                seed=req.seed,
                stop=req.stop or (),
                model=model,
            )
        except ModelNotServed as err:
            raise APIError(404, err.args[0], "model") from err
        except RequestRefused as err:
            raise APIError(400, str(err), err.param) from err
        except ValueError as err:  # the chat template's own refusals (jinja errors included)
            raise APIError(400, f"messages: {err}", "messages") from err
        return model, gen

    def __call__(self, req: ChatCompletionRequest) -> JSONResponse | StreamingResponse:
        model, gen = self.start(req)
        head = {"id": f"chatcmpl-{uuid.uuid4().hex}", "created": int(time.time()), "model": model}
        if req.stream:
            usage = bool(req.stream_options and req.stream_options.include_usage)
            return StreamingResponse(_events(gen, head, usage), media_type="text/event-stream")
        try:
            text = gen.result()
        except Exception as err:  # a failure mid-generation is the server's: 500, one line
            raise APIError(500, f"generation failed: {type(err).__name__}: {err}") from err
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": gen.finish_reason,
            "stop_reason": gen.stop_reason,
        }
        body = {**head, "object": "chat.completion", "choices": [choice], "usage": _usage(gen)}
        return JSONResponse(body)


def _usage(gen: Generation) -> dict[str, int]:
    done = gen.completion_tokens
    return {
        "prompt_tokens": gen.prompt_tokens,
        "completion_tokens": done,
        "total_tokens": gen.prompt_tokens + done,
    }


def _sse(payload: dict[str, Any] | str) -> str:
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return f"data: {data}\n\n"


def _events(gen: Generation, head: dict[str, Any], usage: bool) -> Iterator[str]:
    """The chunks vLLM sends: the role first, one per delta, the finish reason, usage, [DONE]."""

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, **extra}
        return _sse({**head, "object": "chat.completion.chunk", "choices": [choice]})

    yield chunk({"role": "assistant", "content": ""})
    try:
        for piece in gen:
            yield chunk({"content": piece})
    except Exception as err:  # headers are sent: the error travels as an event, as vLLM's does
        yield _sse(error_body(500, f"generation failed: {type(err).__name__}: {err}"))
        yield _sse("[DONE]")
        return
    finally:
        gen.close()  # a client gone mid-stream stops the generation
    yield chunk({}, gen.finish_reason, stop_reason=gen.stop_reason)
    if usage:
        yield _sse({**head, "object": "chat.completion.chunk", "choices": [], "usage": _usage(gen)})
    yield _sse("[DONE]")
