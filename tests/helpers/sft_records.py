"""Middle SFT records as the exporter writes them, a tiny DatasetDict on disk, and the Action
AST answers a fake server gives for them (offline and live eval tests, the middle formats)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FB = {"type": "scroll", "target": "window", "direction": "down"}


def ast(action: dict[str, Any], fallback: dict[str, Any] | None = FB) -> str:
    obj: dict[str, Any] = {"action": action}
    if fallback is not None:
        obj["fallback"] = fallback
    return json.dumps(obj)


def record(key: str, target: str, image: Any) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "You are the middle."}]},
            {
                "role": "user",
                "content": [
                    {"type": "image", "text": None},
                    {"type": "text", "text": f"Command: {key}\nURL: x"},
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": target}]},
        ],
        "images": [image],
        "base_task_id": f"task-{key}",
        "rollout_id": f"r-{key}",
        "step_index": 0,
        "source_sha256": "0" * 64,
        "contract_id": f"c-{key}",
    }


def save_dataset(
    path: Path,
    split_records: dict[str, list[dict[str, Any]]],
    manifest: dict[str, Any] | None = None,
) -> Path:
    from datasets import Dataset, DatasetDict, Features, Image, List, Value

    part = {"type": Value("string"), "text": Value("string")}
    features = Features(
        {
            "messages": List({"role": Value("string"), "content": List(part)}),
            "images": List(Image()),
            "base_task_id": Value("string"),
            "rollout_id": Value("string"),
            "step_index": Value("int32"),
            "source_sha256": Value("string"),
            "contract_id": Value("string"),
        }
    )
    dd = DatasetDict(
        {name: Dataset.from_list(rows, features=features) for name, rows in split_records.items()}
    )
    dd.save_to_disk(str(path))
    if manifest is not None:
        (path / "manifest.json").write_text(json.dumps(manifest))
    return path


def png_image(color: tuple[int, int, int] = (200, 30, 30)) -> Any:
    from PIL import Image

    return Image.new("RGB", (8, 6), color)
