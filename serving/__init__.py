"""Serving students: vLLM launch (base + LoRA, structured outputs), the OpenAI-compatible client,
and the embedded in-process backend. Never imports agent_runtime (docs/architecture.md)."""
