"""`pathwise audit serve`: the rater's pages (WebRider Appendix G, Figure 7).

A rater signs in with a name (no password: a local study tool), then works through their own
queue: the contract, the two blinded rollouts step by step with yes / no / cannot-judge per
step, and a preference for the pair. Each click is one request that commits its label, so a
closed browser loses nothing and signing in again resumes at the first unfinished pair.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, quote

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel

from evals.audit import rating
from evals.audit.store import GATES, StudyError, connect
from evals.viewer.images import trim_png

HERE = Path(__file__).parent
VIEWER_STATIC = HERE.parent / "viewer" / "static"
COOKIE = "pathwise_rater"
GATE_QUESTIONS = {
    "terminal": "The rollout reached a proper end (answer, ask, stop or the task's own end).",
    "hard": "Every hard constraint of the contract holds.",
    "evidence": "The evidence the contract asks for was actually seen.",
    "answer": "The final answer (or end state) is usable.",
    "blocker": "No unresolved material blocker was ignored.",
}


class StepLabel(BaseModel):
    side: Literal["left", "right"]
    step: int
    label: str


class GateLabel(BaseModel):
    side: Literal["left", "right"]
    gate: str
    label: str


class Choice(BaseModel):
    shown: str


def create_app(study: Path) -> FastAPI:
    with connect(study):
        pass  # fail at start, not on the first rater, if this is not a study
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals.update(gates=GATES, gate_questions=GATE_QUESTIONS)
    app = FastAPI(title="Pathwise audit", docs_url=None, redoc_url=None, openapi_url=None)

    def rater(request: Request) -> tuple[str, int] | None:
        name = request.cookies.get(COOKIE)
        if not name:
            return None
        slot = rating.slot_of(study, name)
        return (name, slot) if slot is not None else None

    def need_rater(request: Request) -> tuple[str, int]:
        who = rater(request)
        if who is None:
            raise HTTPException(401, "sign in first")
        return who

    @app.exception_handler(StudyError)
    def study_error(request: Request, exc: StudyError) -> JSONResponse:
        return JSONResponse({"ok": False, "error": str(exc)}, status_code=400)

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request, error: str = "") -> Any:
        if rater(request) is not None:
            return RedirectResponse("/next", status_code=303)
        return templates.TemplateResponse(request, "signin.html", {"error": error})

    @app.post("/signin")
    async def signin(request: Request) -> Any:
        form = parse_qs((await request.body()).decode("utf-8", errors="replace"))
        name = (form.get("name") or [""])[0]
        try:
            name = rating.clean_name(name)
            rating.sign_in(study, name)
        except StudyError as e:
            return RedirectResponse(f"/?error={quote(str(e))}", status_code=303)
        resp = RedirectResponse("/next", status_code=303)
        resp.set_cookie(COOKIE, name, httponly=True, samesite="strict")
        return resp

    @app.get("/signout")
    def signout() -> Any:
        resp = RedirectResponse("/", status_code=303)
        resp.delete_cookie(COOKIE)
        return resp

    @app.get("/next")
    def next_pair(request: Request) -> Any:
        who = rater(request)
        if who is None:
            return RedirectResponse("/", status_code=303)
        pos = rating.next_position(study, who[1])
        return RedirectResponse(f"/pair/{pos}" if pos else "/done", status_code=303)

    @app.get("/pair/{position}", response_class=HTMLResponse)
    def pair(request: Request, position: int) -> Any:
        who = rater(request)
        if who is None:
            return RedirectResponse("/", status_code=303)
        try:
            pk = rating.packet(study, who[1], position)
        except StudyError as e:
            raise HTTPException(404, str(e)) from None
        done = rating.progress(study, who[1])
        return templates.TemplateResponse(
            request,
            "pair.html",
            {"p": pk, "name": who[0], "done": sum(done), "sides": ("left", "right")},
        )

    def _state(slot: int, position: int) -> dict[str, Any]:
        prog = rating.progress(study, slot)
        return {
            "ok": True,
            "complete": prog[position - 1],
            "finished": sum(prog),
            "total": len(prog),
        }

    @app.get("/pair/{position}/img/{side}/{step}")
    def img(request: Request, position: int, side: Literal["left", "right"], step: int) -> Any:
        _, slot = need_rater(request)
        data = rating.image(study, slot, position, side, step)
        if data is None:
            raise HTTPException(404, "no screenshot for this step")
        return Response(trim_png(data), media_type="image/png")

    @app.post("/api/pair/{position}/step")
    def label_step(request: Request, position: int, body: StepLabel) -> Any:
        _, slot = need_rater(request)
        rating.set_step_label(study, slot, position, body.side, body.step, body.label)
        return _state(slot, position)

    @app.post("/api/pair/{position}/gate")
    def label_gate(request: Request, position: int, body: GateLabel) -> Any:
        _, slot = need_rater(request)
        rating.set_gate_label(study, slot, position, body.side, body.gate, body.label)
        return _state(slot, position)

    @app.post("/api/pair/{position}/choice")
    def label_pair(request: Request, position: int, body: Choice) -> Any:
        _, slot = need_rater(request)
        rating.set_pair_label(study, slot, position, body.shown)
        return _state(slot, position)

    @app.get("/done", response_class=HTMLResponse)
    def done(request: Request) -> Any:
        who = rater(request)
        if who is None:
            return RedirectResponse("/", status_code=303)
        prog = rating.progress(study, who[1])
        return templates.TemplateResponse(
            request, "done.html", {"name": who[0], "progress": prog, "finished": all(prog)}
        )

    @app.get("/static/{name}")
    def static(name: str) -> Response:
        files = {
            "viewer.css": (VIEWER_STATIC / "viewer.css", "text/css"),
            "audit.js": (HERE / "static" / "audit.js", "text/javascript"),
        }
        if name not in files:
            raise HTTPException(404)
        path, media = files[name]
        return Response(path.read_bytes(), media_type=media)

    return app
