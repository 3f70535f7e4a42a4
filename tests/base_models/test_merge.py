"""`pathwise models merge`: a LoRA folded into the real SmolLM2 base computes what base + LoRA
computes, records where it came from, and never overwrites another model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.train, pytest.mark.slow]


@pytest.fixture(scope="module")
def random_lora(smollm2: Path, tmp_path_factory) -> Path:
    """A LoRA with random B (PEFT's init leaves B at zero), so merging changes the logits."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(smollm2, dtype=torch.float32)
    cfg = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "down_proj"])
    cfg.init_lora_weights = False
    peft_model = get_peft_model(model, cfg)
    out = tmp_path_factory.mktemp("lora") / "random-lora"
    peft_model.save_pretrained(out)
    AutoTokenizer.from_pretrained(smollm2).save_pretrained(out)
    return out


def _logits(model, ids):
    import torch

    with torch.no_grad():
        return model(ids).logits


def test_merged_model_computes_base_plus_lora(smollm2, random_lora, tmp_path) -> None:
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from base_models.merge import merge_adapter

    out = tmp_path / "merged"
    record = merge_adapter(smollm2, random_lora, out)
    assert record["base_provenance"]["name"] == "smollm2-135m-instruct"
    assert record["name"] == "smollm2-135m-instruct+random-lora"
    assert json.loads((out / "provenance.json").read_text()) == record

    tok = AutoTokenizer.from_pretrained(out)
    assert tok.chat_template, "the merged directory keeps the chat template"
    ids = tok("Click the link named magna.", return_tensors="pt").input_ids
    base = AutoModelForCausalLM.from_pretrained(smollm2, dtype=torch.float32).eval()
    base_logits = _logits(base, ids)
    lora_logits = _logits(PeftModel.from_pretrained(base, str(random_lora)).eval(), ids)
    merged = AutoModelForCausalLM.from_pretrained(out, dtype=torch.float32).eval()
    merged_logits = _logits(merged, ids)
    assert (lora_logits - base_logits).abs().max() > 0.05, "the LoRA changes the logits"
    assert torch.allclose(merged_logits, lora_logits, atol=1e-3)


def test_merge_is_idempotent_and_refuses_to_overwrite(smollm2, random_lora, tmp_path) -> None:
    from base_models.importer import sha256_of
    from base_models.merge import MergeError, merge_adapter

    out = tmp_path / "merged"
    first = merge_adapter(smollm2, random_lora, out)
    digest = sha256_of(random_lora / "adapter_model.safetensors")
    assert first["merged"]["adapter_sha256"] == digest
    stamp = (out / "model.safetensors").stat().st_mtime_ns
    assert merge_adapter(smollm2, random_lora, out) == first  # the same merge: kept as it is
    assert (out / "model.safetensors").stat().st_mtime_ns == stamp

    other = tmp_path / "other-lora"
    other.mkdir()
    for f in random_lora.iterdir():
        (other / f.name).write_bytes(f.read_bytes())
    weights = other / "adapter_model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-8] + b"\0" * 8)  # another adapter's hash
    with pytest.raises(MergeError, match="already holds another model"):
        merge_adapter(smollm2, other, out)

    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    with pytest.raises(MergeError, match="not empty"):
        merge_adapter(smollm2, random_lora, full)
    assert (full / "notes.txt").read_text() == "mine"


def test_merge_names_the_bad_input(smollm2, random_lora, tmp_path) -> None:
    from base_models.merge import MergeError, merge_adapter
    from base_models.tiny import build

    with pytest.raises(MergeError, match=r"adapter_model\.safetensors"):
        merge_adapter(smollm2, smollm2, tmp_path / "a")  # a model directory, not an adapter
    with pytest.raises(MergeError, match=r"no config\.json"):
        merge_adapter(random_lora, random_lora, tmp_path / "b")
    tiny = tmp_path / "tiny"
    build("text", tiny)
    with pytest.raises(MergeError, match="does not fit base"):
        merge_adapter(tiny, random_lora, tmp_path / "c")
    assert not (tmp_path / "c").exists() and not (tmp_path / ".c.partial").exists()
