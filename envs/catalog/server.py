"""Serve a snapshot through its gate on 127.0.0.1: KnowPlan, "CatalogBrowse" (frozen environment).

Routes: GET /_gate/info (root URL and budgets: all an agent sees at the start), POST
/_gate/commit, GET /_gate/receipts, and every snapshot URL, released only with an `X-Seal`
header naming an unrevealed commit for exactly that URL. Runs on the shared AppServer.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from envs.catalog.gate import Budgets, Gate, GateRefusal
from envs.catalog.snapshot import Snapshot
from envs.webapp import AppServer

SEAL_HEADER = "X-Seal"


def create_app(gate: Gate) -> FastAPI:
    app = FastAPI(title="catalog snapshot", docs_url=None, redoc_url=None, openapi_url=None)
    m = gate.snapshot.manifest

    @app.get("/_gate/info")
    def info() -> dict:
        return {
            "root": m.root,
            "institution": m.institution,
            "frozen_at": m.frozen_at,
            "snapshot_sha256": gate.snapshot.manifest_sha256,
            "budgets": {"pages": gate.budgets.pages, "model_calls": gate.budgets.model_calls},
        }

    @app.post("/_gate/commit")
    async def commit(request: Request) -> JSONResponse:
        try:
            data = await request.json()
            r = gate.commit(data["action"], str(data["state"]), str(data["time"]))
        except GateRefusal as exc:
            return JSONResponse({"error": str(exc)}, status_code=exc.status)
        except (KeyError, TypeError, ValueError):
            return JSONResponse({"error": "body must be {action, state, time}"}, status_code=400)
        return JSONResponse(r.model_dump())

    @app.get("/_gate/receipts")
    def receipts() -> list[dict]:
        return [r.model_dump() for r in gate.receipts]

    @app.get("/{path:path}")
    def page(path: str, request: Request) -> Response:
        url = "/" + path + (f"?{request.url.query}" if request.url.query else "")
        try:
            r, status, body, ctype = gate.reveal(url, request.headers.get(SEAL_HEADER))
        except GateRefusal as exc:
            return JSONResponse({"error": str(exc)}, status_code=exc.status)
        return Response(body, status_code=status, media_type=ctype, headers={"X-Receipt": r.hash})

    return app


def serve(directory: str | Path, budgets: Budgets | None = None) -> tuple[AppServer, Gate]:
    """A (not yet started) server for the snapshot at `directory`; use as a context manager."""
    gate = Gate(Snapshot(directory), budgets)
    return AppServer(create_app(gate)), gate
