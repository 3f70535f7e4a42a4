"""Versioned JSON Schema export for every contract model (`pathwise schemas export DIR`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from contracts.actions import ActionAST, action_ast_decoding_schema
from contracts.guard_labels import CompileResult
from contracts.intent import IntentContract
from contracts.observation import Observation
from contracts.persona import PersonaPolicy
from contracts.step_row import RolloutOutcome, StepRow
from contracts.top_state import TopState
from contracts.version import SCHEMA_VERSION

MODELS = {
    "intent_contract": IntentContract,
    "persona_policy": PersonaPolicy,
    "action_ast": ActionAST,
    "observation": Observation,
    "top_state": TopState,
    "compile_result": CompileResult,
    "step_row": StepRow,
    "rollout_outcome": RolloutOutcome,
}


def all_schemas() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, model in MODELS.items():
        schema = model.model_json_schema()
        schema["$id"] = f"https://pathwise.dev/schemas/{SCHEMA_VERSION}/{name}.json"
        schema["x-schema-version"] = SCHEMA_VERSION
        out[name] = schema
    out["action_ast_decoding"] = action_ast_decoding_schema()
    return out


def export_schemas(out_dir: str | Path) -> list[Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in all_schemas().items():
        p = out_dir / f"{name}.schema.json"
        p.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n")
        written.append(p)
    return written
