"""The Canvas-like LMS as a FastAPI app: OdoBot Section V (the sandbox), pages plus REST API.

Pages are server-rendered; every form and action button calls the REST API with fetch, so a
task's side effect is exactly one non-GET request (what the executor's network events record
and what the graph's target vertices are). The app knows nothing of agents, tasks or gold.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from envs.lms.api import install_api
from envs.lms.sections import (
    ACCOUNT_SECTIONS,
    STATIC_OPTIONS,
    Action,
    Section,
    section,
)
from envs.lms.store import LmsStore
from envs.webapp import make_templates

TEMPLATES = Path(__file__).parent / "templates"
COOKIE = "lms_session"
TITLE = "Campus LMS"


def page_base(sec: Section, course_id: int | None) -> str:
    return f"/courses/{course_id}/{sec.key}" if sec.scope == "course" else f"/account/{sec.key}"


def api_base(sec: Section, course_id: int | None) -> str:
    return "/api/v1" + page_base(sec, course_id)


def options_for(store: LmsStore, field_options: str, course_id: int | None, item: Any) -> list:
    """The choices a select or radio field offers, read from the database."""
    if not field_options:
        return []
    if field_options in STATIC_OPTIONS:
        return STATIC_OPTIONS[field_options]
    if field_options == "quiz":
        return list(item["data"].get("choices", [])) if item else []
    if field_options == "people":
        return [u["name"] for u in store.db.query("users", "SELECT * FROM users ORDER BY name")]
    key = {"students": "people", "pages": "pages", "assignments": "assignments"}[field_options]
    sec = section(key)
    rows = store.items(key, course_id)
    if field_options == "students":
        rows = [r for r in rows if r["data"].get("role") == "Student"]
    return [r["data"].get(sec.title_field, "") for r in rows]


def build_app(store: LmsStore) -> FastAPI:
    app = FastAPI(title=TITLE, docs_url=None, redoc_url=None, openapi_url=None)
    templates = make_templates(TEMPLATES)
    sessions: set[str] = set()
    layout = store.world.layout

    def signed_in(request: Request) -> bool:
        return request.cookies.get(COOKIE) in sessions

    def render(request: Request, name: str, **ctx: Any) -> Response:
        if not signed_in(request):
            return RedirectResponse(f"/login?next={request.url.path}", status_code=303)
        courses = store.courses()
        nav = [section(k) for k in layout.nav_order]
        base = {"site_title": TITLE, "banner": layout.banner, "account": ACCOUNT_SECTIONS,
                "course": None}  # fmt: skip
        return templates.TemplateResponse(
            request, name, {**base, "courses": courses, "course_nav": nav, **ctx}
        )

    @app.get("/", response_class=HTMLResponse)
    def root() -> Response:
        return RedirectResponse("/dashboard", status_code=303)

    @app.get("/login", response_class=HTMLResponse)
    def login_page(request: Request) -> Response:
        ctx = {"site_title": TITLE, "banner": layout.banner}
        return templates.TemplateResponse(request, "login.html", ctx)

    @app.post("/api/v1/login")
    async def login(request: Request) -> Response:
        body = await request.json()
        user = store.user_by_login(str(body.get("username", "")))
        if user is None or user["password"] != body.get("password") or user["password"] == "-":
            return JSONResponse({"error": "Invalid username or password"}, status_code=401)
        token = secrets.token_hex(8)
        sessions.add(token)
        resp = JSONResponse({"next": "/dashboard"})
        resp.set_cookie(COOKIE, token, httponly=True, samesite="lax")
        return resp

    @app.get("/dashboard", response_class=HTMLResponse)
    def dashboard(request: Request) -> Response:
        return render(request, "dashboard.html")

    def course_or_none(course_id: int) -> dict[str, Any] | None:
        row = store.item(course_id)
        return row if row and row["section"] == "settings" else None

    @app.get("/courses/{course_id}", response_class=HTMLResponse)
    def course_home(request: Request, course_id: int) -> Response:
        course = course_or_none(course_id)
        if course is None:
            return HTMLResponse("Course not found", status_code=404)
        news = store.items("announcements", course_id)[:3]
        return render(request, "course.html", course=course, news=news)

    def section_page(request: Request, sec: Section, course_id: int | None, rest: str) -> Response:
        course = course_or_none(course_id) if course_id is not None else None
        if course_id is not None and course is None:
            return HTMLResponse("Course not found", status_code=404)
        base = page_base(sec, course_id)
        ctx = {"sec": sec, "course": course, "base": base, "api": api_base(sec, course_id)}
        parts = [p for p in rest.split("/") if p]
        if sec.singleton:
            rows = [course] if sec.key == "settings" else store.items(sec.key, None)
            item = rows[0] if rows else None
            if item is None:
                return HTMLResponse("Not found", status_code=404)
            parts = [str(item["id"]), *parts]
        if not parts:
            return render(request, "section.html", rows=store.items(sec.key, course_id), **ctx)
        if parts == ["new"]:
            act = sec.action("new")
            return form(request, act, None, ctx, f"{ctx['api']}", base)
        item = store.item(int(parts[0])) if parts[0].isdigit() else None
        if item is None or item["section"] != sec.key:
            return HTMLResponse("Not found", status_code=404)
        here = base if sec.singleton else f"{base}/{item['id']}"
        if len(parts) == 1:
            records = store.records(item["id"])
            return render(request, "item.html", item=item, here=here, records=records, **ctx)
        act = sec.action(parts[1])
        return form(request, act, item, ctx, f"{ctx['api']}/{item['id']}/{act.key}", here)

    def form(
        request: Request, act: Action, item: Any, ctx: dict[str, Any], api: str, back: str
    ) -> Response:
        course_id = ctx["course"]["id"] if ctx["course"] else None
        opts = {f.name: options_for(store, f.options, course_id, item) for f in act.fields}
        return render(
            request, "form.html", act=act, item=item, opts=opts, action_api=api, back=back, **ctx
        )

    @app.get("/courses/{course_id}/{key}", response_class=HTMLResponse)
    @app.get("/courses/{course_id}/{key}/{rest:path}", response_class=HTMLResponse)
    def course_section(request: Request, course_id: int, key: str, rest: str = "") -> Response:
        try:
            sec = section(key)
        except KeyError:
            return HTMLResponse("Not found", status_code=404)
        return section_page(request, sec, course_id, rest)

    @app.get("/account/{key}", response_class=HTMLResponse)
    @app.get("/account/{key}/{rest:path}", response_class=HTMLResponse)
    def account_section(request: Request, key: str, rest: str = "") -> Response:
        try:
            sec = section(key)
        except KeyError:
            return HTMLResponse("Not found", status_code=404)
        return section_page(request, sec, None, rest)

    install_api(app, store, signed_in)
    return app
