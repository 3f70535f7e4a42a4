"""Tiny random-weight Qwen3 text model + two LoRA adapters, built once per test session (no hub)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Click(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["click"]
    target: int = Field(ge=0, le=99)


class _Scroll(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["scroll"]
    direction: Literal["up", "down"]


class _Type(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["type"]
    target: int = Field(ge=0, le=99)
    text: str = Field(min_length=1, max_length=12)


class _Small(BaseModel):
    """A small Action-AST-like answer: objects told apart by a const `type`, every value bounded,
    so even a random model must finish inside a small token budget."""

    model_config = ConfigDict(extra="forbid")
    action: _Click | _Scroll | _Type


# The decoding schema is the validator's own, so the two cannot drift apart.
SMALL_SCHEMA = TypeAdapter(_Small).json_schema()


def validate_small(text: str) -> _Small:
    """Strict parse of a completion against SMALL_SCHEMA (raises on any violation)."""
    return TypeAdapter(_Small).validate_json(text, strict=True)


MESSAGES = [
    {"role": "system", "content": "You are the middle layer. Emit one Action AST JSON object."},
    {"role": "user", "content": "Command: click the submit button.\nVisible UI labels: [3] Submit"},
]


def _adapter(base: Path, out: Path, seed: int) -> Path:
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(base)
    # init_lora_weights=False: random A and B, so the adapter really changes the base's outputs.
    cfg = LoraConfig(
        r=8,
        lora_alpha=16,
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
        init_lora_weights=False,
    )
    get_peft_model(model, cfg).save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def tiny_text(tmp_path_factory) -> Path:
    pytest.importorskip("transformers", reason="needs the [train] extra")
    import torch

    from base_models.tiny import build_text

    torch.set_num_threads(1)  # shared two-core machines: one thread is faster
    return build_text(tmp_path_factory.mktemp("tiny") / "text")


@pytest.fixture(scope="session")
def lora_adapters(tiny_text, tmp_path_factory) -> dict[str, Path]:
    pytest.importorskip("peft", reason="needs the [train] extra")
    root = tmp_path_factory.mktemp("adapters")
    return {
        "student": _adapter(tiny_text, root / "student", seed=1),
        "student2": _adapter(tiny_text, root / "student2", seed=2),
    }


@pytest.fixture(scope="session")
def small_schema() -> dict:
    return SMALL_SCHEMA


@pytest.fixture(scope="session")
def messages() -> list[dict]:
    return MESSAGES


@pytest.fixture(scope="session")
def check_small():
    return validate_small


SERVE_KEY = "sk-pathwise-test"


@pytest.fixture(scope="session")
def served(tiny_text, lora_adapters, tmp_path_factory):
    """`pathwise serve` and `pathwise serve --embedded` on the tiny model and its `student`
    adapter, each with an API key, started as a user starts them, side by side (vLLM only
    where its environment exists). float32 on both: what an AVX2-only CPU serves in, and the
    precision in which a batched answer equals the same answer alone."""
    from serving.launch import serve_env_available
    from tests.helpers.pathwise_serve import ServedProcess

    logs = tmp_path_factory.mktemp("served")
    common = ["--base", str(tiny_text), "--served-model-name", "tiny", "--port", "0",
              "--adapter", f"student={lora_adapters['student']}",
              "--max-model-len", "1024", "--dtype", "float32"]  # fmt: skip
    servers = {"embedded": ServedProcess("embedded", [*common, "--embedded"], SERVE_KEY,
                                         logs / "embedded.log")}  # fmt: skip
    if serve_env_available():
        servers["vllm"] = ServedProcess("vllm", common, SERVE_KEY, logs / "vllm.log")
    for srv in servers.values():
        srv.start()
    try:
        for srv in servers.values():
            srv.wait_ready(timeout=300 if srv.name == "vllm" else 120)
        yield servers
    finally:
        for srv in servers.values():
            srv.stop()
