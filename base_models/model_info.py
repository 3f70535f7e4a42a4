"""What the launcher and the embedded backend need to know about a checkpoint, read from its files.

A local directory is read as it is; a hub id through the Hugging Face cache (`hf_hub_download`,
which honours HF_HUB_OFFLINE and falls back to the cache when the hub cannot be reached).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, overload

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


_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def is_hub_id(name: str) -> bool:
    """Spelled as a hub repo id (org/name); says nothing of whether it exists."""
    return bool(_HUB_ID.match(name))


def read_config(model: str | Path) -> dict:
    """config.json of a local checkpoint or of a hub id (the Hugging Face cache, or the hub when
    reachable and HF_HUB_OFFLINE is unset); {} where there is none to read."""
    local = Path(model).expanduser()
    if (local / "config.json").is_file():
        return json.loads((local / "config.json").read_text())
    if local.exists() or not is_hub_id(str(model)):
        return {}
    try:
        from huggingface_hub import hf_hub_download

        path = hf_hub_download(str(model), "config.json")
    except Exception:  # no huggingface_hub, not cached and no hub: nothing to read
        return {}
    return json.loads(Path(path).read_text())


@overload
def is_vision_model(model: str | Path) -> bool: ...
@overload
def is_vision_model(model: str | Path, missing: bool | None) -> bool | None: ...
def is_vision_model(model: str | Path, missing: bool | None = False) -> bool | None:
    """A VL checkpoint: a vision_config, a known VL model_type, or a *ForConditionalGeneration
    architecture whose config carries a text_config (Qwen3-VL's layout). `missing` where no
    config can be read."""
    cfg = read_config(model)
    if not cfg:
        return missing
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
