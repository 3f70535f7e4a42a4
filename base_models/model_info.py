"""What the launcher and the embedded backend need to know about a checkpoint, read from its files.

Only local directories are inspected (no hub here); a hub id is passed through unchanged and
treated as a text model unless the caller says otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# model_type values whose checkpoints take images (Qwen VL families and common others).
_VL_MODEL_TYPES = {
    "qwen2_vl",
    "qwen2_5_vl",
    "qwen3_vl",
    "qwen3_vl_moe",
    "llava",
    "llava_next",
    "idefics3",
    "gemma3",
    "mllama",
    "paligemma",
    "smolvlm",
}


def read_config(model: str | Path) -> dict:
    """config.json of a local checkpoint, or {} for a hub id / a directory without one."""
    path = Path(model) / "config.json"
    if not path.is_file():
        return {}
    return json.loads(path.read_text())


def is_vision_model(model: str | Path) -> bool:
    """A VL checkpoint: a vision_config, a known VL model_type, or a *ForConditionalGeneration
    architecture whose config carries a text_config (Qwen3-VL's layout)."""
    cfg = read_config(model)
    if not cfg:
        return False
    if "vision_config" in cfg or cfg.get("model_type") in _VL_MODEL_TYPES:
        return True
    archs = cfg.get("architectures") or []
    return any("VL" in a or "Vision" in a for a in archs)


def auto_classes(vision: bool) -> tuple[Any, Any]:
    """The transformers (model, processor) classes that load a checkpoint: a VL model with its
    processor, a text model with its tokenizer (`vision` from `is_vision_model`)."""
    from transformers import (
        AutoModelForCausalLM,
        AutoModelForImageTextToText,
        AutoProcessor,
        AutoTokenizer,
    )

    if vision:
        return AutoModelForImageTextToText, AutoProcessor
    return AutoModelForCausalLM, AutoTokenizer


def adapter_rank(adapter_dir: str | Path) -> int:
    """LoRA rank r of a PEFT adapter (adapter_config.json); raises with the path if absent."""
    path = Path(adapter_dir) / "adapter_config.json"
    if not path.is_file():
        raise FileNotFoundError(f"not a PEFT LoRA adapter (no adapter_config.json): {adapter_dir}")
    cfg = json.loads(path.read_text())
    ranks = [int(cfg.get("r") or 0), *(int(v) for v in (cfg.get("rank_pattern") or {}).values())]
    return max(ranks)
