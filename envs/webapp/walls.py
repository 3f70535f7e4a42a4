"""Access walls every local app can put in front of a page: CAPTCHA, login wall, 403 and 429.

WebRider Table 16 (X_access): these are the interruptions the runtime must detect, label and
never bypass. The pages look like the real thing (a challenge widget, a sign-in form behind a
`next=` redirect, a denial page, a rate-limit page with Retry-After) so detection is tested on
what a browser actually shows. No credential or challenge answer ever opens them.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

WallKind = Literal["captcha", "login", "forbidden", "rate_limited"]
WALL_KINDS: tuple[str, ...] = ("captcha", "login", "forbidden", "rate_limited")
_STATUS = {"captcha": 200, "forbidden": 403, "rate_limited": 429}


def wall_response(
    request: Request, templates: Jinja2Templates, kind: WallKind, site_title: str
) -> Response:
    """The response a walled page gets instead of its content."""
    if kind == "login":
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/login?next={quote(target)}", status_code=303)
    resp = templates.TemplateResponse(
        request,
        f"walls/{kind}.html",
        {"site_title": site_title, "path": request.url.path},
        status_code=_STATUS[kind],
    )
    if kind == "rate_limited":
        resp.headers["Retry-After"] = "3600"
    return resp


def install_login(app: FastAPI, templates: Jinja2Templates, site_title: str) -> None:
    """GET /login (the wall's sign-in form) and POST /login, which never lets anyone in here."""

    @app.get("/login", response_class=HTMLResponse)
    def login_page(request: Request, next: str = "/") -> Response:
        return templates.TemplateResponse(
            request, "walls/login.html", {"site_title": site_title, "next": next, "error": ""}
        )

    @app.post("/login", response_class=HTMLResponse)
    def login_post(request: Request) -> Response:
        # Local sites hold no accounts: a wall stays a wall whatever is typed into it.
        return templates.TemplateResponse(
            request,
            "walls/login.html",
            {"site_title": site_title, "next": "/", "error": "Sign-in is unavailable."},
            status_code=401,
        )
