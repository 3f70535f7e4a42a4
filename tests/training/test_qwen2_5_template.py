"""The Qwen2.5 training template (the Qwen2.5-Coder bases): it renders as Qwen2.5's own chat
template, with a system message and without one (then Qwen's default system line), and the loss
mask covers exactly the answers and their end of turn: WebRider Appendix E, Table 37.

On the tiny tokenizer carrying Qwen2.5's own template text, and on the imported Qwen2.5-Coder
tokenizers where `pathwise models import` put them (runs/models/; skipped elsewhere)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.tiny_gguf import QWEN2_5_TEMPLATE
from training.sft_config import REPO_ROOT, RecipeError
from training.templates import check_training_template

pytestmark = pytest.mark.train

TEMPLATE = REPO_ROOT / "training/chat_templates/qwen2_5_training.jinja"
DEFAULT_SYSTEM = (
    "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant."
    "<|im_end|>\n"
)
IMPORTED = [
    REPO_ROOT / "runs/models" / name
    for name in ("qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct")
]
ANSWERS = ['{"op": "ALL_OF", "items": [{"course": "MATH 220"}]}', '{"course": "CS 150"}']
TWO_TURNS = [
    {"role": "user", "content": "MATH 220 and CS 150"},
    {"role": "assistant", "content": ANSWERS[0]},
    {"role": "user", "content": "only CS 150"},
    {"role": "assistant", "content": ANSWERS[1]},
]


def _tiny(tiny_text: Path):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_text)
    tok.chat_template = QWEN2_5_TEMPLATE
    return tok


def _masked(tok, messages) -> str:
    out = tok.apply_chat_template(
        messages,
        chat_template=TEMPLATE.read_text(),
        tokenize=True,
        return_dict=True,
        return_assistant_tokens_mask=True,
    )
    return tok.decode(
        [i for i, m in zip(out["input_ids"], out["assistant_masks"], strict=True) if m]
    )


def _renders_like_qwen2_5_and_masks_the_answers(tok) -> None:
    check_training_template(tok, TEMPLATE, "text")  # with and without a system message
    plain = tok.apply_chat_template(TWO_TURNS, tokenize=False)
    assert plain.startswith(DEFAULT_SYSTEM)
    assert tok.apply_chat_template(
        TWO_TURNS, chat_template=TEMPLATE.read_text(), tokenize=False
    ) == (plain)
    assert _masked(tok, TWO_TURNS) == "".join(a + "<|im_end|>\n" for a in ANSWERS)
    with_system = [{"role": "system", "content": "Translate the span."}, *TWO_TURNS[:2]]
    assert _masked(tok, with_system) == ANSWERS[0] + "<|im_end|>\n"


def test_qwen2_5_training_template_renders_like_qwen2_5_and_masks_the_answers(tiny_text) -> None:
    from trl.chat_template_utils import has_generation_markers

    assert has_generation_markers(TEMPLATE.read_text())
    assert not has_generation_markers(QWEN2_5_TEMPLATE)
    _renders_like_qwen2_5_and_masks_the_answers(_tiny(tiny_text))


def test_tool_calls_render_like_qwen2_5_and_are_trained(tiny_text) -> None:
    tok = _tiny(tiny_text)
    call = {"type": "function", "function": {"name": "lookup", "arguments": {"code": "CS 150"}}}
    msgs = [
        {"role": "user", "content": "Is CS 150 offered?"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [call]},
        {"role": "tool", "content": "yes"},
        {"role": "assistant", "content": "Yes."},
    ]
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {}}}]
    train = TEMPLATE.read_text()
    want = tok.apply_chat_template(msgs, tools=tools, tokenize=False)
    assert tok.apply_chat_template(msgs, tools=tools, chat_template=train, tokenize=False) == want
    masked = _masked(tok, msgs)
    assert masked.startswith("\nChecking.\n<tool_call>\n") and masked.endswith("Yes.<|im_end|>\n")
    assert "yes" not in masked.replace("Yes", "")  # the tool's answer is not trained on


def test_a_template_that_drifts_only_without_a_system_message_is_refused(tiny_text, tmp_path):
    drifted = tmp_path / "drifted.jinja"
    drifted.write_text(TEMPLATE.read_text().replace("You are Qwen,", "You are Qwen2.5,"))
    tok = _tiny(tiny_text)
    with_system = [{"role": "system", "content": "S"}, *TWO_TURNS[:2]]
    assert tok.apply_chat_template(with_system, chat_template=drifted.read_text(),
                                   tokenize=False) == tok.apply_chat_template(
        with_system, tokenize=False
    )  # fmt: skip
    with pytest.raises(RecipeError, match=r"drifted\.jinja renders differently .* at character"):
        check_training_template(tok, drifted, "text")


@pytest.mark.parametrize("model", IMPORTED, ids=lambda p: p.name)
def test_on_the_imported_qwen2_5_coder_tokenizer(model: Path) -> None:
    if not (model / "tokenizer.json").is_file():
        pytest.skip(f"{model.name} not imported here (pathwise models import)")
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model)
    assert tok.chat_template == QWEN2_5_TEMPLATE
    _renders_like_qwen2_5_and_masks_the_answers(tok)
