"""GET /v1/models as vLLM writes it: each model's `root`, an adapter's `parent`."""

from __future__ import annotations

from fastapi import APIRouter, Request

router = APIRouter()


@router.get("/v1/models")
def list_models(raw: Request) -> dict:
    return {"object": "list", "data": raw.app.state.backend.model_cards()}
