"""The LMS REST API: the non-GET calls that are the tasks' side effects (OdoBot Section V).

`POST {base}` creates, `PUT|POST {base}/{id}/{action}` updates, records or flags, and
`DELETE {base}/{id}` deletes, where base is /api/v1/courses/{course}/{section} or
/api/v1/account/{section}. Each answers {"next": url} so the page's script can navigate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from envs.lms.sections import Action, Section, section
from envs.lms.store import LmsStore


def _page(sec: Section, course_id: int | None) -> str:
    return f"/courses/{course_id}/{sec.key}" if sec.scope == "course" else f"/account/{sec.key}"


def coerce(action: Action, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The action's fields from a JSON body, typed; an error message names the first bad one."""
    out: dict[str, Any] = {}
    for f in action.fields:
        raw = body.get(f.name)
        if f.kind == "checkbox":
            out[f.name] = bool(raw)
            continue
        text = str(raw if raw is not None else "").strip()
        if not text:
            return {}, f"{f.label} is required"
        if f.kind == "number":
            try:
                out[f.name] = int(float(text))
            except ValueError:
                return {}, f"{f.label} must be a number"
        else:
            out[f.name] = text
    return out, ""


def install_api(app: FastAPI, store: LmsStore, signed_in: Callable[[Request], bool]) -> None:
    def err(msg: str, status: int = 422) -> Response:
        return JSONResponse({"error": msg}, status_code=status)

    async def body_of(request: Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except ValueError:
            return {}
        return body if isinstance(body, dict) else {}

    def resolve(key: str, course_id: int | None) -> Section | None:
        try:
            sec = section(key)
        except KeyError:
            return None
        if (sec.scope == "course") != (course_id is not None):
            return None
        return sec

    async def create(request: Request, key: str, course_id: int | None) -> Response:
        sec = resolve(key, course_id)
        if not signed_in(request):
            return err("not signed in", 401)
        if sec is None or sec.singleton:
            return err("no such collection", 404)
        data, problem = coerce(sec.action("new"), await body_of(request))
        if problem:
            return err(problem)
        new_id = store.create(sec.key, course_id, data)
        return JSONResponse({"id": new_id, "next": f"{_page(sec, course_id)}/{new_id}"})

    async def act(
        request: Request, key: str, course_id: int | None, item_id: int, action: str
    ) -> Response:
        sec = resolve(key, course_id)
        if not signed_in(request):
            return err("not signed in", 401)
        item = store.item(item_id)
        if sec is None or item is None or item["section"] != sec.key:
            return err("no such item", 404)
        try:
            spec = sec.action(action)
        except KeyError:
            return err("no such action", 404)
        if spec.method != request.method:
            return err(f"{action} needs {spec.method}", 405)
        data, problem = coerce(spec, await body_of(request))
        if problem:
            return err(problem)
        base = _page(sec, course_id)
        here = base if sec.singleton else f"{base}/{item_id}"
        if spec.effect == "update":
            store.update(item_id, data)
        elif spec.effect == "record":
            store.add_record(item_id, spec.record, data)
        elif spec.effect == "flag":
            store.update(item_id, {spec.record: True})
        elif spec.effect == "delete":
            store.delete(item_id)
            here = base
        return JSONResponse({"id": item_id, "next": here})

    @app.post("/api/v1/courses/{course_id}/{key}")
    async def course_create(request: Request, course_id: int, key: str) -> Response:
        return await create(request, key, course_id)

    @app.post("/api/v1/account/{key}")
    async def account_create(request: Request, key: str) -> Response:
        return await create(request, key, None)

    @app.api_route("/api/v1/courses/{course_id}/{key}/{item_id}/{action}", methods=["PUT", "POST"])
    async def course_act(
        request: Request, course_id: int, key: str, item_id: int, action: str
    ) -> Response:
        return await act(request, key, course_id, item_id, action)

    @app.api_route("/api/v1/account/{key}/{item_id}/{action}", methods=["PUT", "POST"])
    async def account_act(request: Request, key: str, item_id: int, action: str) -> Response:
        return await act(request, key, None, item_id, action)

    @app.delete("/api/v1/courses/{course_id}/{key}/{item_id}")
    async def course_delete(request: Request, course_id: int, key: str, item_id: int) -> Response:
        return await act(request, key, course_id, item_id, "delete")

    @app.delete("/api/v1/account/{key}/{item_id}")
    async def account_delete(request: Request, key: str, item_id: int) -> Response:
        return await act(request, key, None, item_id, "delete")
