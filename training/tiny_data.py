"""Synthetic SFT datasets in the exporter's on-disk layout, for CPU smoke runs and benchmarks.

Writes a DatasetDict (splits train/eval) with ``save_to_disk`` exactly as data_export does:
middle-layer records (system / user with one image part then text / assistant Action AST JSON, an
``images`` column of one PIL image, base_task_id, rollout_id, step_index) or clause-to-AST records
(plain-string contents, base_task_id).
CLI: ``python -m training.tiny_data --kind vl|text --out DIR``.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

MIDDLE_SYSTEM = "You are the middle layer. Emit one Action AST JSON object."
CLAUSE_SYSTEM = "Translate the prerequisite span into a clause AST JSON object."
_LABELS = ["Submit", "Search", "Next", "Cancel", "OK", "Login"]
_COLOURS = [(220, 40, 40), (40, 180, 60), (40, 80, 220), (230, 200, 40)]


def middle_record(i: int, rng: random.Random, image_size: tuple[int, int] = (128, 96)):
    """One middle-layer record; the target depends on the text so a model can learn it."""
    from PIL import Image, ImageDraw

    target = rng.randrange(len(_LABELS))
    img = Image.new("RGB", image_size, (255, 255, 255))
    draw = ImageDraw.Draw(img)
    x = 8 + 16 * target % (image_size[0] - 24)
    draw.rectangle([x, 30, x + 20, 50], fill=_COLOURS[target % len(_COLOURS)])
    action = {
        "action": {"type": "click", "target": target},
        "fallback": {"type": "scroll", "target": "window", "direction": "down"},
    }
    user = f"Command: click {_LABELS[target]}. Visible labels: " + ", ".join(
        f"[{k}] {lab}" for k, lab in enumerate(_LABELS)
    )
    return {
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": MIDDLE_SYSTEM}]},
            {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": user}]},
            {"role": "assistant", "content": [{"type": "text", "text": json.dumps(action)}]},
        ],
        "images": [img],
        "base_task_id": f"task-{i // 2}",
        "rollout_id": f"rollout-{i}",
        "step_index": i % 5,
    }


def clause_record(i: int, rng: random.Random) -> dict[str, Any]:
    """One clause-to-AST record with plain-string contents."""
    a, b = rng.sample(["MATH 101", "CS 150", "CS 201", "PHYS 220", "CHEM 101"], 2)
    if rng.random() < 0.5:
        span, ast = f"{a} and {b}", {"op": "ALL_OF", "items": [{"course": a}, {"course": b}]}
    else:
        span, ast = f"one of {a} or {b}", {"op": "ANY_OF", "items": [{"course": a}, {"course": b}]}
    user = f"Span: Prerequisite: {span}.\nIdentifiers: {json.dumps([a, b])}"
    return {
        "messages": [
            {"role": "system", "content": CLAUSE_SYSTEM},
            {"role": "user", "content": user},
            {"role": "assistant", "content": json.dumps(ast)},
        ],
        "base_task_id": f"clause-{i}",
    }


def build(kind: str, out: Path | str, n_train: int = 32, n_eval: int = 4, seed: int = 0) -> Path:
    """Write the synthetic DatasetDict of ``kind`` ("vl" or "text") to ``out``."""
    from datasets import Dataset, DatasetDict, Features, Image, List, Value

    rng = random.Random(seed)
    make = (lambda i: middle_record(i, rng)) if kind == "vl" else (lambda i: clause_record(i, rng))
    rows = [make(i) for i in range(n_train + n_eval)]
    features = None
    if kind == "vl":
        part = {"type": Value("string"), "text": Value("string")}
        features = Features(
            {
                "messages": List({"role": Value("string"), "content": List(part)}),
                "images": List(Image()),
                "base_task_id": Value("string"),
                "rollout_id": Value("string"),
                "step_index": Value("int64"),
            }
        )
    dd = DatasetDict(
        {
            "train": Dataset.from_list(rows[:n_train], features=features),
            "eval": Dataset.from_list(rows[n_train:], features=features),
        }
    )
    out = Path(out)
    dd.save_to_disk(str(out))
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m training.tiny_data", description=__doc__)
    p.add_argument("--kind", choices=["vl", "text"], required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--n-train", type=int, default=32)
    p.add_argument("--n-eval", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    print(build(a.kind, a.out, a.n_train, a.n_eval, a.seed))


if __name__ == "__main__":
    main()
