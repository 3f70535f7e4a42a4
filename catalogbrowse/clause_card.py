"""The trained clause model's card: KnowPlan, "Deterministic-first parsing" (the fallback's model).

`pathwise catalog clause-model train` writes MODEL/clause_model.json (this schema) and a readable
MODEL/README.md beside the merged weights; the fallback reads the layout the model was trained on
from here, so a model is never asked in a format it did not learn. The default model lives at
runs/clause-model/model (or $PATHWISE_CLAUSE_MODEL), where `parse-prereq --model` finds it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planner.clause_layout import DEFAULT_LAYOUT

CARD_FILE = "clause_model.json"
DEFAULT_WORK = Path("runs/clause-model")


def default_model_dir() -> Path:
    return Path(os.environ.get("PATHWISE_CLAUSE_MODEL") or DEFAULT_WORK / "model")


class ClauseModelCard(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "clause-model"
    layout: str = DEFAULT_LAYOUT
    base: str
    recipe: str
    data: dict[str, Any] = Field(default_factory=dict)  # the dataset manifest's counts and split
    training: dict[str, Any] = Field(default_factory=dict)  # steps, losses, seconds, precision
    scores: dict[str, Any] = Field(default_factory=dict)  # held-out generator families
    machine: dict[str, Any] = Field(default_factory=dict)
    created: str = ""


class CardError(ValueError):
    """No usable card; the message names the file."""


def read_card(model_dir: str | Path) -> ClauseModelCard:
    path = Path(model_dir) / CARD_FILE
    if not path.is_file():
        raise CardError(
            f"{path}: no clause model card (train one with `pathwise catalog clause-model train`)"
        )
    try:
        return ClauseModelCard.model_validate_json(path.read_text())
    except ValidationError as exc:
        raise CardError(f"{path}: {str(exc).splitlines()[0]}") from None
