"""Errors in OpenAI's body shape, `{"error": {"message", "type", "param", "code"}}`, as vLLM
writes them (its ErrorResponse): every refusal is one such body, never a traceback."""

from __future__ import annotations

import re
from http import HTTPStatus

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

# vLLM's `type` for each status it sends (vllm/entrypoints/serve/exception_handling).
_TYPES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    405: "MethodNotAllowedError",
    500: "InternalServerError",
}


class APIError(Exception):
    """A refusal with its HTTP status and, where one field is to blame, that field."""

    def __init__(self, status: int, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param


def error_body(status: int, message: str, param: str | None = None) -> dict:
    kind = _TYPES.get(status, HTTPStatus(status).phrase)
    return {"error": {"message": message, "type": kind, "param": param, "code": status}}


def error_response(status: int, message: str, param: str | None = None) -> JSONResponse:
    return JSONResponse(error_body(status, message, param), status_code=status)


# Segments pydantic adds to a `loc` for the branch of a union it tried ('stop', 'list[str]'),
# not field names: dropped, as vLLM's clean_loc_for_param drops them.
_BRANCH = re.compile(r"[\[\](){}]|^(str|int|float|bool|list|dict|none|union|tagged-union)$")


def _field(loc: tuple) -> str:
    """('body', 'messages', 0, 'role') -> 'messages.0.role'; ('body', 'stop', 'str') -> 'stop'."""
    if not loc or loc[0] != "body":
        return ""
    return ".".join(str(p) for p in loc[1:] if not _BRANCH.search(str(p)))


async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
    first = exc.errors()[0] if exc.errors() else {}
    if first.get("type") == "json_invalid":
        why = (first.get("ctx") or {}).get("error", "")
        return error_response(400, f"request body is not valid JSON: {why}".rstrip(": "))
    param = _field(tuple(first.get("loc", ())))
    message = f"{param or 'body'}: {first.get('msg', 'invalid value')}"
    return error_response(400, message, param or None)


async def _api_error(_: Request, exc: APIError) -> JSONResponse:
    return error_response(exc.status, exc.message, exc.param)


async def _http(_: Request, exc: HTTPException) -> JSONResponse:
    return error_response(exc.status_code, str(exc.detail))


def install(app: FastAPI) -> None:
    """Every error the app can raise answers in the OpenAI shape."""
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(APIError, _api_error)
    app.add_exception_handler(HTTPException, _http)
