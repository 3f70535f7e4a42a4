"""Tiny random-weight Qwen3-VL and Qwen3 checkpoints for CPU runs of WebRider Appendix E recipes.

The models are built from a config with random weights, a byte-level BPE tokenizer is trained
locally (no hub), and everything is written with ``save_pretrained`` so tests load them through
``AutoProcessor`` / ``AutoModelForImageTextToText`` / ``AutoModelForCausalLM`` exactly as a GPU node
loads ``Qwen/Qwen3-VL-8B-Instruct``.

CLI: ``python -m base_models.tiny --kind vl|text --out DIR``.
"""

from __future__ import annotations

import argparse
import json
from importlib import resources
from pathlib import Path
from typing import Literal

Kind = Literal["vl", "text"]

# Qwen's special tokens, in Qwen's order, so chat templates and processors find them by name.
_SPECIAL_TOKENS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
]
# Not special in Qwen3 (they are decoded as text), but single tokens.
_PLAIN_ADDED = ["<think>", "</think>", "<tool_call>", "</tool_call>"]

# The stock chat templates, byte-identical to the ones Qwen ships; TRL recognises them by identity
# and
# swaps in its {% generation %}-tagged training variant for assistant-only loss.
_TEMPLATE = {"vl": "qwen3_vl.jinja", "text": "qwen3_instruct_2507.jinja"}

_CORPUS_WORDS = (
    "action fallback type target click scroll type_text select window direction down up left right "
    "submit search next previous page button link text value label course prerequisite "
    "ALL_OF ANY_OF CHOOSE_N n items course_ref standing consent concurrent instructor "
    "permission of or and one the system user assistant You are the middle layer emit one "
    "Action AST JSON object intention command persona policy constraints history failures "
    "visible UI labels screenshot recommended junior senior "
    "MATH CS PHYS CHEM ENGL 101 201 150 220 310 minimum grade true false null"
)


def _corpus() -> list[str]:
    """A small deterministic corpus covering chat markup, JSON punctuation and catalog prose."""
    words = _CORPUS_WORDS.split()
    lines = [" ".join(words[i : i + 9]) for i in range(0, len(words), 3)]
    lines += [
        '{"action": {"type": "click", "target": 3}, "fallback": {"type": "scroll", '
        '"target": "window", "direction": "down"}}',
        '{"op": "ALL_OF", "items": [{"course": "MATH 101"}, {"op": "ANY_OF", "items": []}]}',
        "Prerequisite: MATH 101 and (CS 150 or CS 201), or permission of instructor.",
        "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nhello<|im_end|>\n",
        "0123456789 .,;:!?()[]{}<>\"'-_/\\|+=*&^%$#@~`",
    ]
    return lines * 4


def build_tokenizer(kind: Kind, vocab_size: int = 800, corpus: list[str] | None = None):
    """Train a byte-level BPE locally; wrap it as Qwen's tokenizer class with Qwen's template.

    `corpus` replaces the built-in smoke corpus: a student trained on a task should get merges
    from that task's own text (its fixed interface card then costs a handful of tokens).
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import Qwen2Tokenizer

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=_SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(corpus if corpus else _corpus(), trainer=trainer)
    state = json.loads(bpe.to_str())["model"]
    # Qwen2Tokenizer's BPE wants merges as (left, right) tuples; newer tokenizers serialise lists.
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in state["merges"]]
    chat_template = (resources.files("trl") / "chat_templates" / _TEMPLATE[kind]).read_text()
    tok = Qwen2Tokenizer(
        vocab=state["vocab"],
        merges=merges,
        unk_token=None,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        extra_special_tokens=_SPECIAL_TOKENS[1:],
        chat_template=chat_template,
        model_max_length=32768,
    )
    tok.add_tokens(_PLAIN_ADDED)
    return tok


def _text_rope(head_dim: int, vl: bool) -> dict:
    rope: dict = {"rope_type": "default", "rope_theta": 5_000_000.0 if vl else 1_000_000.0}
    if vl:
        # Qwen3-VL splits half the head dim across (t, h, w); the stock [24, 20, 20] is sized for
        # 128.
        half = head_dim // 2
        h = w = (half * 5) // 16
        rope |= {"mrope_section": [half - h - w, h, w], "mrope_interleaved": True}
    return rope


# Qwen/Qwen3-VL-8B-Instruct's preprocessor_config.json: the image settings a GPU node loads
# (a 1024x768 screenshot is 64 x 48 patches of 16 px, merged 2 x 2: 768 image tokens).
QWEN3_VL_IMAGE = {
    "size": {"longest_edge": 16777216, "shortest_edge": 65536},
    "patch_size": 16,
    "temporal_patch_size": 2,
    "merge_size": 2,
    "image_mean": [0.5, 0.5, 0.5],
    "image_std": [0.5, 0.5, 0.5],
}


def qwen3_vl_processor(tokenizer, size: dict[str, int] | None = None):
    """A Qwen3VLProcessor with Qwen3-VL-8B's image settings (pixel range `size` if given)."""
    from transformers import Qwen2VLImageProcessor, Qwen3VLProcessor, Qwen3VLVideoProcessor

    image = {**QWEN3_VL_IMAGE, **({"size": size} if size else {})}
    video = {k: image[k] for k in ("size", "patch_size", "temporal_patch_size", "merge_size")}
    return Qwen3VLProcessor(
        image_processor=Qwen2VLImageProcessor(**image),
        tokenizer=tokenizer,
        video_processor=Qwen3VLVideoProcessor(**video),
        chat_template=tokenizer.chat_template,
    )


def build_vl(out: Path, seed: int = 0) -> Path:
    """Build, save and reload-check a tiny Qwen3-VL (2+2 layers, hidden 64) with its processor."""
    import torch
    from transformers import (
        AutoModelForImageTextToText,
        AutoProcessor,
        Qwen3VLConfig,
        Qwen3VLForConditionalGeneration,
    )

    torch.manual_seed(seed)
    tok = build_tokenizer("vl")
    ids = {t: tok.convert_tokens_to_ids(t) for t in _SPECIAL_TOKENS}
    head_dim = 32  # vLLM's CPU attention rejects 16; keeps the tiny model servable too
    config = Qwen3VLConfig(
        text_config={
            "vocab_size": len(tok),
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "head_dim": head_dim,
            "max_position_embeddings": 8192,
            "rope_parameters": _text_rope(head_dim, vl=True),
            "pad_token_id": ids["<|endoftext|>"],
            "eos_token_id": ids["<|im_end|>"],
            "bos_token_id": None,
        },
        vision_config={
            "depth": 2,
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_heads": 4,
            "patch_size": 16,
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
            "out_hidden_size": 64,
            "num_position_embeddings": 256,
            "deepstack_visual_indexes": [0, 1],  # must lie inside the (tiny) depth
        },
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=False,
    )
    model = Qwen3VLForConditionalGeneration(config)
    model.generation_config.eos_token_id = [ids["<|im_end|>"], ids["<|endoftext|>"]]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    # Small screenshots keep CPU steps fast: at most 256x256 px -> at most 64 image tokens.
    processor = qwen3_vl_processor(tok, size={"shortest_edge": 32 * 32, "longest_edge": 256 * 256})
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    # Reload through the Auto classes, as a real checkpoint is loaded, to fail here and not in a
    # test.
    AutoProcessor.from_pretrained(out)
    AutoModelForImageTextToText.from_pretrained(out)
    return out


def build_text(
    out: Path,
    seed: int = 0,
    *,
    corpus: list[str] | None = None,
    vocab_size: int = 800,
    hidden_size: int = 64,
    intermediate_size: int = 128,
    num_hidden_layers: int = 2,
    num_attention_heads: int = 4,
    num_key_value_heads: int = 2,
    rope_theta: float | None = None,
) -> Path:
    """Build, save and reload-check a small random Qwen3 causal LM and its tokenizer.

    Defaults give the 2-layer, hidden-64 smoke model; a demo recipe passes larger sizes and
    its own corpus. head_dim stays 32: vLLM's CPU attention rejects 16. `rope_theta` below
    Qwen3's 1e6 gives a short-context student positional resolution at nearby tokens, which
    the previous-token heads behind copying need.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(seed)
    tok = build_tokenizer("text", vocab_size=vocab_size, corpus=corpus)
    eos, pad = tok.convert_tokens_to_ids("<|im_end|>"), tok.convert_tokens_to_ids("<|endoftext|>")
    config = Qwen3Config(
        vocab_size=len(tok),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=num_hidden_layers,
        num_attention_heads=num_attention_heads,
        num_key_value_heads=num_key_value_heads,
        head_dim=32,
        max_position_embeddings=8192,
        rope_parameters=_text_rope(32, vl=False)
        | ({"rope_theta": float(rope_theta)} if rope_theta else {}),
        tie_word_embeddings=False,
        pad_token_id=pad,
        eos_token_id=eos,
        bos_token_id=None,
    )
    model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = [eos, pad]
    model.generation_config.pad_token_id = pad
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    AutoTokenizer.from_pretrained(out)
    AutoModelForCausalLM.from_pretrained(out)
    return out


def build(kind: Kind, out: Path | str, seed: int = 0) -> Path:
    """Build the tiny model of ``kind`` into ``out`` and return the directory."""
    out = Path(out)
    return build_vl(out, seed) if kind == "vl" else build_text(out, seed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m base_models.tiny",
        description="Build a tiny random-weight Qwen3-VL (vl) or Qwen3 (text) checkpoint.",
    )
    parser.add_argument("--kind", choices=["vl", "text"], required=True)
    parser.add_argument("--out", type=Path, required=True, help="directory to save_pretrained into")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    path = build(args.kind, args.out, args.seed)
    print(f"tiny {args.kind} model saved to {path}")


if __name__ == "__main__":
    main()
