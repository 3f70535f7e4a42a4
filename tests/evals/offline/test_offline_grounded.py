"""`run_offline(grounded_schema=True)`: each request carries its own step's schema."""

from __future__ import annotations

import json
from pathlib import Path

from agent_runtime.runner.config import MiddleSpec
from evals.offline.run import OfflineConfig, run_offline
from serving.protocol import ChatResult
from tests.helpers.sft_records import ast, png_image, record, save_dataset


class _Recorder:
    """Answers with the first label the schema admits, typing its first allowed text."""

    def __init__(self) -> None:
        self.schemas: list[dict] = []

    def chat(self, messages, json_schema=None, temperature=0.0, max_tokens=256):
        self.schemas.append(json_schema)
        alts = {
            a["properties"]["type"]["const"]: a
            for a in json_schema["properties"]["action"]["anyOf"]
        }
        t = alts["type"]["properties"]
        action = {"type": "type", "target": t["target"]["enum"][0], "submit": False}
        action["text"] = t["text"]["enum"][0]
        return ChatResult(text=json.dumps({"action": action}))


def _rec(key: str, command: str, labels: str, target: dict) -> dict:
    r = record(key, ast(target), png_image())
    r["messages"][1]["content"][1]["text"] = f"Command: {command}\nURL: x\nLabels:\n{labels}"
    return r


def test_offline_grounded_schema_per_record(tmp_path: Path) -> None:
    recs = [
        _rec(
            "a",
            'type "zq" into "Name" textbox',
            '[2] "Name" textbox\n[5] "Go" button',
            {"type": "type", "target": 2, "text": "zq", "submit": False},
        ),
        _rec(
            "b",
            'type "k" into textbox',
            '[7] "" textbox',
            {"type": "type", "target": 7, "text": "k", "submit": False},
        ),
    ]
    ds = save_dataset(tmp_path / "ds", {"train": recs[:1], "eval": recs})
    backend = _Recorder()
    cfg = OfflineConfig(
        dataset=ds, out=tmp_path / "out", concurrency=1, middle=MiddleSpec(grounded_schema=True)
    )
    res = run_offline(cfg, backend=backend, progress=False)
    targets = sorted(
        json.dumps(a["properties"]["target"])
        for s in backend.schemas
        for a in s["properties"]["action"]["anyOf"]
        if a["properties"]["type"]["const"] == "type"
    )
    assert targets == ['{"enum": [2, 5]}', '{"enum": [7]}']
    assert res["config"]["grounded_schema"] is True
    assert res["metrics"]["target_match"] == 1.0 and res["metrics"]["exact_action_match"] == 1.0
