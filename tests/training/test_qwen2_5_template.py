"""The Qwen2.5 training templates (the Qwen2.5-Coder bases): each renders as the chat template its
checkpoint carries, with a system message and without one (then Qwen's default system line), and
with tools, and the loss mask covers exactly the answers and their end of turn: WebRider
Appendix E, Table 37.

On the tiny tokenizer carrying each template's text as the GGUFs ship it. The imported
Qwen2.5-Coder tokenizers themselves are checked the same way at every training start
(training/sft_trainer.py runs check_training_template on them), so a template that drifts from
its checkpoint stops a run before its first step."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.qwen_chat_templates import QWEN2_5, QWEN2_5_CODER
from training.sft_config import REPO_ROOT, RecipeError
from training.templates import check_training_template

pytestmark = pytest.mark.train

TEMPLATES = REPO_ROOT / "training/chat_templates"
# (the checkpoint's own template, the training template for it)
PAIRS = {
    "qwen2.5": (QWEN2_5, TEMPLATES / "qwen2_5_training.jinja"),
    "qwen2.5-coder": (QWEN2_5_CODER, TEMPLATES / "qwen2_5_coder_training.jinja"),
}
DEFAULT_SYSTEM = (
    "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant."
    "<|im_end|>\n"
)
ANSWERS = ['{"op": "ALL_OF", "items": [{"course": "MATH 220"}]}', '{"course": "CS 150"}']
TWO_TURNS = [
    {"role": "user", "content": "MATH 220 and CS 150"},
    {"role": "assistant", "content": ANSWERS[0]},
    {"role": "user", "content": "only CS 150"},
    {"role": "assistant", "content": ANSWERS[1]},
]
CALL = {"type": "function", "function": {"name": "lookup", "arguments": {"code": "CS 150"}}}
WITH_TOOLS = [
    {"role": "user", "content": "Is CS 150 offered?"},
    {"role": "assistant", "content": "Checking.", "tool_calls": [CALL]},
    {"role": "tool", "content": "yes"},
    {"role": "assistant", "content": "Yes."},
]
TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {}}}]


def _tiny(tiny_text: Path, own: str):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_text)
    tok.chat_template = own
    return tok


def _masked(tok, train: Path, messages, **kw) -> str:
    out = tok.apply_chat_template(
        messages,
        chat_template=train.read_text(),
        tokenize=True,
        return_dict=True,
        return_assistant_tokens_mask=True,
        **kw,
    )
    return tok.decode(
        [i for i, m in zip(out["input_ids"], out["assistant_masks"], strict=True) if m]
    )


def _renders_as_its_own_and_masks_the_answers(tok, train: Path) -> None:
    check_training_template(tok, train, "text")  # with and without a system message
    for msgs, kw in ((TWO_TURNS, {}), (WITH_TOOLS, {"tools": TOOLS})):
        own = tok.apply_chat_template(msgs, tokenize=False, **kw)
        assert tok.apply_chat_template(msgs, chat_template=train.read_text(), tokenize=False,
                                       **kw) == own  # fmt: skip
    assert tok.apply_chat_template(TWO_TURNS, tokenize=False).startswith(DEFAULT_SYSTEM)
    assert _masked(tok, train, TWO_TURNS) == "".join(a + "<|im_end|>\n" for a in ANSWERS)
    with_system = [{"role": "system", "content": "Translate the span."}, *TWO_TURNS[:2]]
    assert _masked(tok, train, with_system) == ANSWERS[0] + "<|im_end|>\n"
    tool_turns = _masked(tok, train, WITH_TOOLS, tools=TOOLS)
    assert tool_turns.startswith("\nChecking.\n<tool_call>\n{")
    assert tool_turns.endswith("</tool_call><|im_end|>\nYes.<|im_end|>\n")
    assert "<tool_response>" not in tool_turns and "lookup" in tool_turns


@pytest.mark.parametrize("variant", PAIRS)
def test_training_template_renders_as_its_own_and_masks_the_answers(variant, tiny_text) -> None:
    from trl.chat_template_utils import has_generation_markers

    own, train = PAIRS[variant]
    assert has_generation_markers(train.read_text()) and not has_generation_markers(own)
    _renders_as_its_own_and_masks_the_answers(_tiny(tiny_text, own), train)


def test_the_two_variants_differ_only_with_tools(tiny_text) -> None:
    """Why there are two: the same conversation with tools renders differently, without none."""
    plain, coder = (_tiny(tiny_text, own) for own, _ in PAIRS.values())
    assert plain.apply_chat_template(TWO_TURNS, tokenize=False) == coder.apply_chat_template(
        TWO_TURNS, tokenize=False
    )
    assert plain.apply_chat_template(WITH_TOOLS, tools=TOOLS, tokenize=False) != (
        coder.apply_chat_template(WITH_TOOLS, tools=TOOLS, tokenize=False)
    )


def test_a_template_that_drifts_only_without_a_system_message_is_refused(tiny_text, tmp_path):
    own, train = PAIRS["qwen2.5"]
    drifted = tmp_path / "drifted.jinja"
    drifted.write_text(train.read_text().replace("You are Qwen,", "You are Qwen2.5,"))
    tok = _tiny(tiny_text, own)
    with_system = [{"role": "system", "content": "S"}, *TWO_TURNS[:2]]
    assert tok.apply_chat_template(with_system, chat_template=drifted.read_text(),
                                   tokenize=False) == tok.apply_chat_template(
        with_system, tokenize=False
    )  # fmt: skip
    with pytest.raises(RecipeError, match=r"drifted\.jinja renders differently .* at character"):
        check_training_template(tok, drifted, "text")
