"""Offline-eval serving throughput (WebRider Appendix E): vLLM on CPU vs the embedded backend.

Both backends answer the same prompts under the same Action AST JSON Schema and token budget in
one run; examples per second is what the offline eval experiences (vLLM with N requests in flight,
the embedded backend one at a time in-process). By default a tiny random Qwen3 + LoRA adapter is
built locally; pass a base and adapter to measure a trained student instead.
`pathwise bench serving` runs it (`run_serving`).
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from serving.batch import BatchItem, chat_many
from serving.protocol import ChatBackend, Message

LABELS = ["Submit", "Cancel", "OK", "Next", "Search", "Login", "Yes", "No", "Home", "Save"]
SYSTEM = (
    "You are the middle layer. Given the command and the visible UI labels, emit exactly one "
    "Action AST JSON object."
)


# Action-AST-shaped but with every value bounded (enum / maximum / maxLength), so a random-weight
# model also finishes its object: measures complete answers, not the token cap.
BOUNDED_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "type": {"const": "click"},
                        "target": {"type": "integer", "minimum": 0, "maximum": 9},
                    },
                    "required": ["type", "target"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "properties": {
                        "type": {"const": "scroll"},
                        "target": {"const": "window"},
                        "direction": {"enum": ["up", "down"]},
                    },
                    "required": ["type", "target", "direction"],
                    "additionalProperties": False,
                },
            ]
        }
    },
    "required": ["action"],
    "additionalProperties": False,
}


def make_prompts(n: int, seed: int = 0) -> list[list[Message]]:
    """MiniWoB-style commands over a numbered label table (deterministic)."""
    rng = random.Random(seed)
    convs = []
    for _ in range(n):
        labels = rng.sample(LABELS, 5)
        target = rng.choice(labels)
        verb = rng.choice(["Click the", "Press the", "Select the"])
        table = "\n".join(f"[{i}] button {lab!r}" for i, lab in enumerate(labels))
        user = f"Command: {verb} {target} button.\nVisible UI labels:\n{table}"
        convs.append([{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}])
    return convs


def summarize(name: str, schema: str, items: list[BatchItem], wall_s: float, extra: dict) -> dict:
    ok = [it.result for it in items if it.result is not None]
    lat = sorted(r.latency_s for r in ok)

    def parses(text: str) -> bool:
        try:
            json.loads(text)
            return True
        except ValueError:
            return False

    return {
        "backend": name,
        "schema": schema,
        "examples": len(items),
        "errors": sum(it.error is not None for it in items),
        "wall_s": round(wall_s, 3),
        "examples_per_s": round(len(ok) / wall_s, 3) if wall_s else None,
        "completion_tokens_per_s": round(sum(r.usage.completion_tokens for r in ok) / wall_s, 1),
        "latency_p50_s": round(statistics.median(lat), 4) if lat else None,
        "latency_p95_s": round(lat[int(0.95 * (len(lat) - 1))], 4) if lat else None,
        "mean_prompt_tokens": round(statistics.mean(r.usage.prompt_tokens for r in ok), 1),
        "mean_completion_tokens": round(statistics.mean(r.usage.completion_tokens for r in ok), 1),
        "json_parse_rate": round(sum(parses(r.text) for r in ok) / max(1, len(ok)), 4),
        "finished_rate": round(sum(r.finish_reason == "stop" for r in ok) / max(1, len(ok)), 4),
        **extra,
    }


def run_backend(
    backend: ChatBackend, prompts, schema, concurrency: int, max_tokens: int, name: str
) -> tuple[list[BatchItem], float]:
    # Warm-up: grammar compilation and first-call allocation are not throughput.
    backend.chat(prompts[0], json_schema=schema, max_tokens=max_tokens)
    start = time.perf_counter()
    items = chat_many(
        backend, prompts, schema, concurrency=concurrency, max_tokens=max_tokens, desc=name
    )
    return items, time.perf_counter() - start


def build_models(workdir: Path) -> tuple[Path, Path]:
    """Tiny random Qwen3 text model + a rank-8 LoRA adapter (random B so it changes outputs)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    from base_models.tiny import build_text

    base, adapter = workdir / "tiny-text", workdir / "student"
    if not (base / "config.json").exists():
        build_text(base)
    if not (adapter / "adapter_config.json").exists():
        torch.manual_seed(1)
        model = AutoModelForCausalLM.from_pretrained(base)
        lora = LoraConfig(
            r=8, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"], init_lora_weights=False
        )
        get_peft_model(model, lora).save_pretrained(adapter)
    return base, adapter


def run_serving(
    workdir: Path,
    prompts: int = 64,
    concurrency: int = 8,
    max_tokens: int = 48,
    threads: int = 1,
    base: Path | None = None,
    adapter: Path | None = None,
    skip_vllm: bool = False,
) -> tuple[dict[str, Any], str]:
    """Both backends on both schemas; the result document and its markdown."""
    import torch

    from contracts import action_ast_decoding_schema
    from serving.client import ChatClient
    from serving.embedded import EmbeddedBackend
    from serving.launch import VLLMServer, serve_env_available
    from serving.vllm_args import Adapter, ServeConfig

    torch.set_num_threads(threads)
    workdir.mkdir(parents=True, exist_ok=True)
    if base is None:
        base, adapter = build_models(workdir)
    convs = make_prompts(prompts)
    schemas = {"action_ast": action_ast_decoding_schema(), "bounded": BOUNDED_SCHEMA}
    rows: list[dict] = []

    if not skip_vllm and serve_env_available():
        cfg = ServeConfig(
            base=str(base),
            served_model_name="base",
            adapters=[Adapter(name="student", path=adapter)] if adapter else [],
            max_model_len=2048,
            max_num_seqs=max(8, concurrency),
        )
        t0 = time.perf_counter()
        with VLLMServer(cfg, log_path=workdir / "vllm.log", startup_timeout=600) as srv:
            startup = time.perf_counter() - t0
            model = "student" if adapter else "base"
            with ChatClient(srv.base_url, model, vision=False, timeout=300) as cl:
                for sname, schema in schemas.items():
                    items, wall = run_backend(
                        cl, convs, schema, concurrency, max_tokens, f"vllm {sname}"
                    )
                    extra = {"startup_s": round(startup, 1), "concurrency": concurrency}
                    rows.append(summarize("vllm-cpu", sname, items, wall, extra))
    t0 = time.perf_counter()
    emb = EmbeddedBackend(base, adapter_dir=adapter, base_name="base", adapter_name="student")
    load = time.perf_counter() - t0
    for sname, schema in schemas.items():
        items, wall = run_backend(emb, convs, schema, 1, max_tokens, f"embedded {sname}")
        extra = {"startup_s": round(load, 1), "concurrency": 1, "torch_threads": threads}
        rows.append(summarize("embedded", sname, items, wall, extra))

    meta = {
        "model": str(base),
        "adapter": str(adapter) if adapter else None,
        "prompts": prompts,
        "max_tokens": max_tokens,
        "schemas": {
            "action_ast": "contracts.action_ast_decoding_schema()",
            "bounded": "Action-AST-shaped, every value bounded (evals/offline/throughput.py)",
        },
        "embedded": "transformers generate + llguidance token masks, one request at a time",
    }
    return {"meta": meta, "results": rows}, markdown(rows, meta, list(schemas))


def markdown(rows: list[dict], meta: dict[str, Any], schemas: list[str]) -> str:
    cols = [
        ("backend", "backend"),
        ("schema", "schema"),
        ("examples_per_s", "examples/s"),
        ("completion_tokens_per_s", "completion tok/s"),
        ("latency_p50_s", "p50 latency s"),
        ("latency_p95_s", "p95 latency s"),
        ("mean_completion_tokens", "mean completion tok"),
        ("json_parse_rate", "JSON parses"),
        ("finished_rate", "finished (stop)"),
        ("startup_s", "startup s"),
        ("concurrency", "in flight"),
    ]
    lines = [
        "# Serving throughput: vLLM on CPU vs embedded backend",
        "",
        f"{meta['prompts']} prompts per row, JSON Schema as structured output, "
        f"max {meta['max_tokens']} completion tokens; model `{Path(meta['model']).name}`"
        f"{' + LoRA `student`' if meta['adapter'] else ''}.",
        "",
        "| " + " | ".join(h for _, h in cols) + " |",
        "|" + "---|" * len(cols),
    ]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(k, "")) for k, _ in cols) + " |")
    by = {(r["backend"], r["schema"]): r["examples_per_s"] for r in rows}
    lines.append("")
    for sname in schemas:
        v, e = by.get(("vllm-cpu", sname)), by.get(("embedded", sname))
        if v and e:
            lines.append(f"- {sname}: vLLM / embedded examples per second = {v / e:.2f}x")
    lines += [
        "- vLLM: N requests in flight (continuous batching), guidance backend, bf16; "
        "embedded: in-process, one at a time, float32.",
        "- A random-weight model fills unbounded fields (numbers, strings) until the token cap, "
        "so on the full Action AST schema its answers are truncated; the bounded schema shows "
        "complete answers. A trained student finishes its objects on both.",
    ]
    return "\n".join(lines)
