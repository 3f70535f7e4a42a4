"""TRL's fused LM head on a CPU scores only labelled positions once `compact_on_cpu()` ran, with the
loss and gradients it gave when it scored every position."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import trl.trainer.utils as trl_utils
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM
from trl.trainer.utils import add_fused_lm_head

from training.cpu_lm_head import compact_on_cpu

pytestmark = pytest.mark.train


class _RowSpy:
    """Stands in for TRL's chunked log-prob function and records how many rows it projects."""

    def __init__(self, real):
        self.real, self.rows = real, []

    def apply(self, hidden, *args):
        self.rows.append(hidden.shape[0])
        return self.real.apply(hidden, *args)


def _loss_and_grads(model_dir: Path) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    add_fused_lm_head(model, outputs=("log_probs", "entropy", "is_top1"))
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    model = get_peft_model(model, lora)
    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(10, model.config.vocab_size, (3, 24), generator=gen)
    labels = ids.clone()
    labels[:, :17] = -100  # an answer of 7 tokens after a 17-token prompt, as SFT labels it
    labels[2, 17:20] = -100  # rows with different answer lengths
    mask = torch.ones_like(ids)
    out = model(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True)
    out.loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    return out.loss.detach(), grads


def test_labelled_positions_only_and_the_same_loss_and_gradients(tiny_text: Path, monkeypatch):
    monkeypatch.setattr(trl_utils, "_use_triton", trl_utils._use_triton)  # restored afterwards
    spy = _RowSpy(trl_utils._ChunkedLogProbFunction)
    monkeypatch.setattr(trl_utils, "_ChunkedLogProbFunction", spy)

    every_loss, every_grads = _loss_and_grads(tiny_text)
    assert compact_on_cpu() is True
    assert compact_on_cpu() is True  # a second call does not wrap the wrapper
    compact_loss, compact_grads = _loss_and_grads(tiny_text)

    # TRL's own CPU path projects all 3 x 23 shifted positions; the compact one only the 18 labels.
    assert spy.rows == [3 * 23, 7 + 7 + 4]
    torch.testing.assert_close(compact_loss, every_loss)
    assert compact_grads.keys() == every_grads.keys() and compact_grads
    for name, grad in every_grads.items():
        torch.testing.assert_close(compact_grads[name], grad, msg=name)


def test_a_batch_without_labels_still_backpropagates(tiny_text: Path, monkeypatch):
    monkeypatch.setattr(trl_utils, "_use_triton", trl_utils._use_triton)
    compact_on_cpu()
    model = AutoModelForCausalLM.from_pretrained(tiny_text, dtype=torch.float32)
    add_fused_lm_head(model)
    model = get_peft_model(model, LoraConfig(r=4, target_modules=["q_proj"], task_type="CAUSAL_LM"))
    ids = torch.randint(10, 100, (2, 8))
    out = model(input_ids=ids, labels=torch.full_like(ids, -100), fused_lm_head=True)
    out.loss.backward()  # a micro-batch cut from a prompt-only example: zero, not an error
    assert out.loss.item() == 0.0
