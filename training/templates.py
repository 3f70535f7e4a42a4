"""The training chat template a recipe names must render as the model's own: WebRider Appendix E,
Table 37 (loss on the post-guard action only).

A recipe's `trainer.chat_template_path` is the model's chat template with `{% generation %}`
markers around the assistant turn (TRL's assistant-only loss needs them). The student is served
with the model's own template, so the two must produce the same text, byte for byte; a checkpoint
that ships a newer template revision would otherwise train on one prompt and serve another. This
is checked on the processor the run loads, before any training step.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from training.sft_config import RecipeError

_ANSWER = '{"action": {"type": "click", "target": 3}, "fallback": {"type": "scroll"}}'


def probe_messages(kind: str) -> list[dict[str, Any]]:
    """A middle-layer record's shape: system, user (screenshot for a VL model), the answer."""
    if kind == "vl":
        return [
            {"role": "system", "content": [{"type": "text", "text": "You are the middle layer."}]},
            {
                "role": "user",
                "content": [{"type": "image"}, {"type": "text", "text": "Command: click Submit"}],
            },
            {"role": "assistant", "content": [{"type": "text", "text": _ANSWER}]},
        ]
    return [
        {"role": "system", "content": "You are the middle layer."},
        {"role": "user", "content": "Command: click Submit"},
        {"role": "assistant", "content": _ANSWER},
    ]


def probe_conversations(kind: str) -> list[tuple[list[dict[str, Any]], bool]]:
    """(messages, add_generation_prompt): the probe whole and up to the generation prompt, with
    its system message and without one (where a template puts its own default, e.g. Qwen2.5's
    "You are Qwen, created by Alibaba Cloud...", or SmolLM2's)."""
    msgs = probe_messages(kind)
    return [(msgs, False), (msgs[:2], True), (msgs[1:], False), (msgs[1:2], True)]


def check_training_template(processing_class: Any, path: Path, kind: str) -> None:
    """Raise RecipeError unless `path` renders each probe conversation exactly as the
    processor's own chat template does."""
    if not path.is_file():
        raise RecipeError(f"trainer.chat_template_path: {path} does not exist")
    own = getattr(processing_class, "chat_template", None)
    if not own:  # nothing to match: the training template becomes the model's template
        return
    training = path.read_text()
    for convo, prompt in probe_conversations(kind):
        want = processing_class.apply_chat_template(
            convo, tokenize=False, add_generation_prompt=prompt
        )
        got = processing_class.apply_chat_template(
            convo, chat_template=training, tokenize=False, add_generation_prompt=prompt
        )
        if got != want:
            at = next(
                (i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                min(len(got), len(want)),
            )
            raise RecipeError(
                f"trainer.chat_template_path: {path} renders differently from the model's own "
                f"chat template at character {at} ({got[at : at + 30]!r} vs "
                f"{want[at : at + 30]!r}); regenerate it from the model's template with "
                "{% generation %} around the assistant turn"
            )
