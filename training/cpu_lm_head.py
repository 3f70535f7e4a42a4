"""On a CPU, TRL's fused LM head projects only the positions that carry a label, as it does on GPUs.

TRL's SFTTrainer computes the loss through `add_fused_lm_head`: the backbone runs, then the LM head
projects hidden states onto the vocabulary in tiles, recomputed in the backward pass. On Triton
devices it projects only the positions whose next-token label is not -100; elsewhere it projects
every position, so that compiled tile shapes stay fixed (its comment names Neuron). Eager CPU
training compiles nothing, and with the loss on answer tokens only about a quarter of a clause
record's tokens carry a label: projecting all of them made a SmolLM2-135M step about a fifth
slower on two cores (benchmarks/results/lm_head.md). The masked positions add exactly zero to the
loss and its gradients, so scoring only the labelled ones changes no number beyond float rounding.

TRL decides this with the module-level `_use_triton(device)` of `trl.trainer.utils`, which it
uses for that one decision (the tile kernels read their own module's copy). `compact_on_cpu()`
wraps it to say yes for CPU tensors. tests/training/test_cpu_lm_head.py fails if a TRL release
moves the decision, so the speed-up cannot go missing silently.
"""

from __future__ import annotations

import logging

import torch
import trl.trainer.utils as trl_utils

log = logging.getLogger(__name__)

_MARK = "_pathwise_compact_on_cpu"


def compact_on_cpu() -> bool:
    """Make the fused LM head score only labelled positions of CPU tensors; idempotent.

    Returns whether the patch is in place (False, with a warning, if this TRL has no
    `_use_triton` to wrap: training is still correct, only slower on a CPU).
    """
    original = getattr(trl_utils, "_use_triton", None)
    if original is None:
        log.warning(
            "trl %s has no trl.trainer.utils._use_triton: the LM head scores every position "
            "on a CPU (correct, slower)",
            getattr(trl_utils, "__version__", "?"),
        )
        return False
    if getattr(original, _MARK, False):
        return True

    def compact(device: torch.device) -> bool:
        return device.type == "cpu" or original(device)

    setattr(compact, _MARK, True)
    trl_utils._use_triton = compact
    return True
