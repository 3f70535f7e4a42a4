"""Held-out SFT records to eval requests: the prompt without its assistant turn, and the target.

Records are the exporter's conversational format (system, user with an image placeholder and
text, assistant holding the post-guard Action AST JSON). The request keeps the training text
exactly: text-only requests flatten parts the way training/data.py does for text students.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from serving.protocol import png_data_url

Message = dict[str, Any]


def load_split(dataset_dir: Path, split: str) -> Any:
    """One split of a DatasetDict saved with save_to_disk."""
    from datasets import load_from_disk

    dd = load_from_disk(str(dataset_dir))
    if split not in dd:
        raise KeyError(f"{dataset_dir} has no split {split!r} (splits: {sorted(dd)})")
    return dd[split]


def load_manifest(dataset_dir: Path) -> dict[str, Any] | None:
    path = Path(dataset_dir) / "manifest.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text") or "" for p in content or [] if p.get("type") == "text")


def target_text(record: dict[str, Any]) -> str:
    """The last assistant turn's text: the post-guard Action AST JSON."""
    for m in reversed(record["messages"]):
        if m["role"] == "assistant":
            return _text_of(m["content"])
    raise ValueError("record has no assistant turn")


def user_text(messages: list[Message]) -> str:
    """The last user turn's text (the rendered middle input) of request messages."""
    for m in reversed(messages):
        if m["role"] == "user":
            return _text_of(m["content"])
    raise ValueError("request has no user turn")


def image_png(image: Any) -> bytes | None:
    """PNG bytes of a decoded datasets Image (PIL), an undecoded {'bytes', 'path'} dict or bytes."""
    if image is None:
        return None
    if isinstance(image, bytes | bytearray):
        return bytes(image)
    if isinstance(image, dict):
        if image.get("bytes"):
            return bytes(image["bytes"])
        if image.get("path"):
            return Path(image["path"]).read_bytes()
        return None
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def request_messages(record: dict[str, Any], vision: bool) -> tuple[list[Message], int]:
    """OpenAI chat messages for one record and the number of image parts without an image.

    The final assistant turn (the target) is dropped. With ``vision`` each ``{"type": "image"}``
    placeholder becomes a base64 PNG ``image_url`` part taken in order from ``images``;
    text-only requests drop image parts and send each message's text as a plain string.
    """
    msgs = list(record["messages"])
    if msgs and msgs[-1]["role"] == "assistant":
        msgs = msgs[:-1]
    images = list(record.get("images") or [])
    missing = 0
    out: list[Message] = []
    for m in msgs:
        content = m["content"]
        if not vision or isinstance(content, str):
            out.append({"role": m["role"], "content": _text_of(content)})
            continue
        parts: list[dict[str, Any]] = []
        for p in content:
            if p.get("type") == "image":
                png = image_png(images.pop(0)) if images else None
                if png is None:
                    missing += 1
                    continue
                parts.append({"type": "image_url", "image_url": {"url": png_data_url(png)}})
            elif p.get("type") == "text":
                parts.append({"type": "text", "text": p.get("text") or ""})
        if all(p["type"] == "text" for p in parts):
            out.append({"role": m["role"], "content": "".join(p["text"] for p in parts)})
        else:
            out.append({"role": m["role"], "content": parts})
    return out, missing


def train_prompts(dataset_dir: Path, split: str) -> set[str] | None:
    """The user texts of every split but `split` (the training side), or None when the dataset
    has no other split: the held-out prompts that also occur there measure recall."""
    from datasets import load_from_disk

    dd = load_from_disk(str(dataset_dir))
    others = [s for s in dd if s != split]
    if not others:
        return None
    return {_text_of(m["content"]) for s in others for r in dd[s] for m in r["messages"]
            if m["role"] == "user"}  # fmt: skip


def prompt_text(record: dict[str, Any]) -> str:
    """The record's user text, as `train_prompts` collects it."""
    return next(_text_of(m["content"]) for m in record["messages"] if m["role"] == "user")


def record_meta(record: dict[str, Any]) -> dict[str, Any]:
    """Identifying columns carried into predictions.jsonl (those the record has)."""
    keys = ("base_task_id", "rollout_id", "step_index", "contract_id")
    return {k: record[k] for k in keys if k in record}
