"""Structured outputs for in-process generation, compiled as vLLM's `guidance` backend compiles
them (vllm/v1/structured_output/backend_guidance.py: `serialize_guidance_grammar`).

One constraint per request, of the kinds vLLM's ``structured_outputs`` names: a JSON Schema, any
JSON object, a regular expression, a choice among strings, or a Lark grammar. llguidance turns it
into a grammar and hands a token mask per step (`GrammarMask`), so the embedded backend and a vLLM
server given the same request are constrained by the same compiler.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

Kind = Literal["json", "json_object", "regex", "choice", "grammar"]

# Compact JSON (vLLM's `disable_any_whitespace`, which `pathwise serve` turns on): a weak model
# cannot wander into endless whitespace, and the output matches the compact SFT targets.
_JSON_DEFAULTS = {"whitespace_flexible": False}


class StructuredOutput(BaseModel):
    """One constraint: its kind and its text (a schema as JSON, a regex, choices as JSON...)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Kind
    spec: str = Field(default="", description="the grammar text llguidance reads")

    @classmethod
    def json_schema(cls, schema: dict[str, Any] | str) -> StructuredOutput:
        text = schema if isinstance(schema, str) else json.dumps(schema, sort_keys=True)
        return cls(kind="json", spec=text)

    @classmethod
    def choice(cls, choices: list[str]) -> StructuredOutput:
        if not choices:
            raise ValueError("choice must list at least one string")
        return cls(kind="choice", spec=json.dumps(choices))

    def grammar(self) -> str:
        """The llguidance grammar; ValueError naming the problem when it does not compile."""
        return _compile(self.kind, self.spec)


@functools.lru_cache(maxsize=256)
def _compile(kind: Kind, spec: str) -> str:
    # Bounded: a grounded schema differs per step, so an eval would otherwise keep one compiled
    # grammar per example for the life of the backend.
    import llguidance

    try:
        if kind == "json":
            return llguidance.LLMatcher.grammar_from_json_schema(spec, defaults=_JSON_DEFAULTS)
        if kind == "json_object":
            return llguidance.LLMatcher.grammar_from_json_schema(
                '{"type": "object"}', defaults=_JSON_DEFAULTS
            )
        return llguidance.grammar_from(kind, spec)
    except (ValueError, TypeError, RuntimeError) as err:
        raise ValueError(f"{kind} constraint does not compile: {err}") from err


class GrammarMask:
    """A transformers LogitsProcessor that feeds sampled tokens to an llguidance matcher and
    masks every token the grammar forbids at the next position (EOS alone once it is done)."""

    def __init__(self, matcher: Any, prompt_len: int, eos_ids: list[int]) -> None:
        self.matcher = matcher
        self.prompt_len = prompt_len
        self.eos_ids = eos_ids
        self.consumed = 0
        self._bitmask: np.ndarray | None = None

    def __call__(self, input_ids, scores):
        import torch
        from llguidance.numpy import allocate_token_bitmask, fill_next_token_bitmask

        generated = input_ids[0, self.prompt_len :].tolist()
        new = generated[self.consumed :]
        if new:
            self.matcher.consume_tokens(new)
            self.consumed += len(new)
        if self.matcher.is_error():
            raise RuntimeError(f"constrained decoding failed: {self.matcher.get_error()}")
        vocab = scores.shape[-1]
        if self.matcher.is_stopped():
            allowed = torch.zeros(vocab, dtype=torch.bool)
            allowed[self.eos_ids] = True
        else:
            if self._bitmask is None:
                self._bitmask = allocate_token_bitmask(1, vocab)
            fill_next_token_bitmask(self.matcher, self._bitmask)
            bits = np.unpackbits(self._bitmask.view(np.uint8), bitorder="little")[:vocab]
            allowed = torch.from_numpy(bits.astype(bool))
        return scores.masked_fill(~allowed.to(scores.device), float("-inf"))
