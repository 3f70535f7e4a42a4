"""Tiny checkpoints, loss masks and overlength deletion: WebRider Appendix E, Table 37."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from training.checkpoints import last_checkpoint, plan_resume, write_meta

pytestmark = pytest.mark.train


def test_tiny_vl_loads_through_auto_classes(tiny_vl: Path):
    from transformers import AutoModelForImageTextToText, AutoProcessor

    processor = AutoProcessor.from_pretrained(tiny_vl)
    model = AutoModelForImageTextToText.from_pretrained(tiny_vl)
    assert type(processor).__name__ == "Qwen3VLProcessor"
    assert model.config.model_type == "qwen3_vl"
    assert model.config.text_config.head_dim == 32 and model.config.vision_config.depth == 2
    assert max(model.config.vision_config.deepstack_visual_indexes) < 2
    assert processor.tokenizer.eos_token == "<|im_end|>"


def test_tiny_text_loads_through_auto_classes(tiny_text: Path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_text)
    model = AutoModelForCausalLM.from_pretrained(tiny_text)
    assert model.config.model_type == "qwen3"
    text = tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False)
    assert "<think>" not in text  # non-thinking template: no think tags in the trained span


def _masked_text(processing_class, tokenizer, messages, images=None) -> str:
    from trl.chat_template_utils import get_training_chat_template

    kwargs = {"images": images} if images is not None else {}
    out = processing_class.apply_chat_template(
        messages,
        chat_template=get_training_chat_template(processing_class),
        tokenize=True,
        return_dict=True,
        return_assistant_tokens_mask=True,
        **kwargs,
    )
    ids = out["input_ids"][0] if images is not None else out["input_ids"]
    mask = out["assistant_masks"][0] if images is not None else out["assistant_masks"]
    return tokenizer.decode([i for i, m in zip(ids, mask, strict=True) if m])


def test_assistant_mask_is_exactly_the_action_json(tiny_vl: Path, vl_data: Path):
    """A record read with load_from_disk passes TRL's VL collator; only the AST is trained."""
    from datasets import load_from_disk
    from transformers import AutoProcessor
    from trl.chat_template_utils import get_training_chat_template
    from trl.trainer.sft_trainer import DataCollatorForVisionLanguageModeling

    processor = AutoProcessor.from_pretrained(tiny_vl)
    row = load_from_disk(str(vl_data))["train"][0]
    target = row["messages"][2]["content"][0]["text"]
    collator = DataCollatorForVisionLanguageModeling(
        processor=processor,
        max_length=256,
        assistant_only_loss=True,
        chat_template=get_training_chat_template(processor),
    )
    batch = collator([{"messages": row["messages"], "images": row["images"]}])
    ids, labels = batch["input_ids"][0], batch["labels"][0]
    assert batch["pixel_values"].shape[0] > 0 and batch["image_grid_thw"].shape == (1, 3)
    masked = processor.tokenizer.decode(ids[labels != -100])
    assert masked.strip() == target + "<|im_end|>"


def test_clause_mask_is_exactly_the_ast_json(tiny_text: Path):
    import random

    from transformers import AutoTokenizer

    from training.tiny_data import clause_record

    tok = AutoTokenizer.from_pretrained(tiny_text)
    rec = clause_record(0, random.Random(0))
    masked = _masked_text(tok, tok, rec["messages"])
    assert masked.strip() == rec["messages"][2]["content"] + "<|im_end|>"


def test_delete_overlength_counts(tiny_text: Path):
    from datasets import Dataset
    from transformers import AutoTokenizer

    from training.data import delete_overlength, text_length_fn

    tok = AutoTokenizer.from_pretrained(tiny_text)
    rows = [
        {
            "messages": [
                {"role": "user", "content": "x " * n},
                {"role": "assistant", "content": "{}"},
            ]
        }
        for n in (5, 500, 10, 900)
    ]
    kept, counts = delete_overlength(Dataset.from_list(rows), text_length_fn(tok), 128, 1)
    assert (counts.total, counts.kept, counts.deleted_overlength) == (4, 2, 2)
    assert counts.longest_kept <= 128 < counts.longest_seen
    # Deleted, not truncated: the survivors are the short rows, unchanged.
    assert [r["messages"][0]["content"] for r in kept] == ["x " * 5, "x " * 10]


def test_balance_by_resamples_the_train_split_only(tmp_path: Path):
    from collections import Counter

    from datasets import Dataset, DatasetDict

    from training.data import load_splits

    verbs = ["submit"] * 12 + ["click"] * 6 + ["select"] * 2
    rows = [
        {"messages": [{"role": "user", "content": f"{v} {i}"}], "command_verb": v}
        for i, v in enumerate(verbs)
    ]
    DatasetDict(
        {"train": Dataset.from_list(rows), "eval": Dataset.from_list(rows[:3])}
    ).save_to_disk(str(tmp_path / "ds"))
    out = load_splits(tmp_path / "ds", "train", "eval", balance_by="command_verb", seed=1)
    train = [m[0]["content"] for m in out["train"]["messages"]]
    counts = Counter(t.split()[0] for t in train)
    assert len(train) == 20 and max(counts.values()) - min(counts.values()) <= 1
    # The rare kind is repeated, every one of its rows used; the common one is a subset.
    assert {t for t in train if t.startswith("select")} == {"select 18", "select 19"}
    assert len(set(t for t in train if t.startswith("submit"))) == counts["submit"] < 12
    assert out["train"].column_names == ["messages"] and len(out["eval"]) == 3
    again = load_splits(tmp_path / "ds", "train", "eval", balance_by="command_verb", seed=1)
    assert again["train"]["messages"] == out["train"]["messages"]
    with pytest.raises(ValueError, match="split 'train' has no column 'task'"):
        load_splits(tmp_path / "ds", "train", None, balance_by="task")


def test_plan_resume(tmp_path: Path):
    assert plan_resume(tmp_path, 1, "auto", None).mode == "fresh"
    for step in (5, 10):
        (tmp_path / f"checkpoint-{step}").mkdir()
        write_meta(tmp_path / f"checkpoint-{step}", 4, 1, 8)
    assert last_checkpoint(tmp_path).name == "checkpoint-10"
    assert plan_resume(tmp_path, 4, "auto", None).mode == "full"
    plan = plan_resume(tmp_path, 3, "auto", None)
    assert plan.mode == "model_only" and plan.checkpoint.name == "checkpoint-10"
    assert plan_resume(tmp_path, 4, "never", None).mode == "fresh"
    other = tmp_path / "elsewhere"
    assert plan_resume(tmp_path / "empty", 3, "auto", other).mode == "model_only"
    assert (
        json.loads((tmp_path / "checkpoint-5" / "pathwise_checkpoint.json").read_text())[
            "world_size"
        ]
        == 4
    )


def test_gemma4_training_template_renders_like_gemma4_and_masks_the_ast(tiny_text: Path):
    """The Gemma recipes' template: same text as Gemma 4's own, loss only on the model turn."""
    from importlib import resources

    from transformers import AutoTokenizer
    from trl.chat_template_utils import has_generation_markers

    from training.sft_config import REPO_ROOT, load_recipe

    recipe = load_recipe(REPO_ROOT / "training/recipes/middle-gemma4-31b.yaml")
    path = REPO_ROOT / recipe.trainer["chat_template_path"]
    train = path.read_text()
    orig = (resources.files("trl") / "chat_templates" / "gemma4_v5.jinja").read_text()
    assert has_generation_markers(train) and not has_generation_markers(orig)
    tok = AutoTokenizer.from_pretrained(tiny_text)
    tok.add_tokens(["<|turn>", "<turn|>"], special_tokens=True)
    target = '{"action": {"type": "click", "target": 3}}'
    msgs = [
        {"role": "system", "content": [{"type": "text", "text": "You are the middle layer."}]},
        {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "click Submit"}]},
        {"role": "assistant", "content": [{"type": "text", "text": target}]},
    ]
    assert tok.apply_chat_template(msgs, chat_template=train, tokenize=False) == (
        tok.apply_chat_template(msgs, chat_template=orig, tokenize=False)
    )
    out = tok.apply_chat_template(
        msgs,
        chat_template=train,
        tokenize=True,
        return_dict=True,
        return_assistant_tokens_mask=True,
    )
    ids = [i for i, m in zip(out["input_ids"], out["assistant_masks"], strict=True) if m]
    assert tok.decode(ids) == target + "<turn|>\n"


def _real_vl_processor(tiny_vl: Path, **size):
    """Qwen3-VL-8B's image settings around the tiny model's tokenizer and stock template."""
    from transformers import AutoProcessor

    from base_models.tiny import qwen3_vl_processor

    return qwen3_vl_processor(AutoProcessor.from_pretrained(tiny_vl).tokenizer, **size)


def test_qwen3vl_training_template_masks_exactly_the_answer(tiny_vl: Path):
    """The Qwen3-VL recipes' shipped template on a processor with the real model's patch 16 and
    merge 2 and a 1024x768 screenshot: it renders as Qwen3-VL's own, the screenshot is 768
    image tokens, and the loss covers exactly the answer and its end of turn."""
    from PIL import Image
    from trl.chat_template_utils import has_generation_markers
    from trl.trainer.sft_trainer import DataCollatorForVisionLanguageModeling

    from training.sft_config import REPO_ROOT, load_recipe
    from training.templates import check_training_template, probe_messages

    processor = _real_vl_processor(tiny_vl)
    paths = {
        REPO_ROOT
        / load_recipe(REPO_ROOT / f"training/recipes/{name}.yaml").trainer["chat_template_path"]
        for name in ("middle-qwen3vl-8b", "middle-qwen3vl-32b", "middle-qwen3vl-30b-a3b")
    }
    assert len(paths) == 1
    path = paths.pop()
    train = path.read_text()
    assert has_generation_markers(train) and not has_generation_markers(processor.chat_template)
    check_training_template(processor, path, "vl")  # renders as the model's own: no error
    msgs = probe_messages("vl")
    answer = msgs[2]["content"][0]["text"]
    collator = DataCollatorForVisionLanguageModeling(
        processor=processor, max_length=None, assistant_only_loss=True, chat_template=train
    )
    batch = collator([{"messages": msgs, "images": [Image.new("RGB", (1024, 768), "white")]}])
    assert batch["image_grid_thw"].tolist() == [[1, 48, 64]]
    ids, labels = batch["input_ids"][0], batch["labels"][0]
    image_pad = processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    assert int((ids == image_pad).sum()) == 768
    assert processor.tokenizer.decode(ids[labels != -100]) == answer + "<|im_end|>\n"


def test_training_template_that_renders_differently_is_refused(tiny_vl: Path, tmp_path: Path):
    from training.sft_config import REPO_ROOT, RecipeError
    from training.templates import check_training_template

    processor = _real_vl_processor(tiny_vl)
    shipped = (REPO_ROOT / "training/chat_templates/qwen3_vl_training.jinja").read_text()
    drifted = tmp_path / "drifted.jinja"
    drifted.write_text(shipped.replace("<|im_start|>assistant\\n", "<|im_start|>assistant \\n"))
    with pytest.raises(RecipeError, match=r"drifted\.jinja renders differently .* at character"):
        check_training_template(processor, drifted, "vl")


def test_length_filter_counts_image_tokens_and_max_pixels(tiny_vl: Path, tmp_path: Path):
    """A 1024x768 screenshot counts 768 image tokens at the processor's defaults (Table 37), and
    a quarter with max_pixels at a quarter of its area; the lengths are one column, measured once
    and read back from the cache the other ranks use."""
    from datasets import Dataset, List
    from datasets import Image as ImageFeature
    from PIL import Image

    from training.data import delete_overlength, vl_length_fn
    from training.templates import probe_messages

    buf = io.BytesIO()
    Image.new("RGB", (1024, 768), "white").save(buf, format="PNG")
    ds = Dataset.from_list(
        [{"messages": probe_messages("vl"), "images": [{"bytes": buf.getvalue(), "path": None}]}]
    ).cast_column("images", List(ImageFeature()))
    full = vl_length_fn(_real_vl_processor(tiny_vl))(ds[0])
    quarter = {"longest_edge": 1024 * 768 // 4, "shortest_edge": 65536}
    capped = vl_length_fn(_real_vl_processor(tiny_vl, size=quarter))(ds[0])
    assert full - capped == 768 - 192
    calls = []

    def length(ex):
        calls.append(1)
        return full

    cache = tmp_path / "lengths" / "train.arrow"
    kept, counts = delete_overlength(ds, length, full - 1, 1, cache)
    assert (len(kept), counts.deleted_overlength, counts.longest_seen) == (0, 1, full)
    assert calls == [1] and cache.is_file()
    _, again = delete_overlength(ds, length, full, 1, cache)  # another rank: read, not measured
    assert calls == [1] and again.kept == 1
    assert Dataset.from_file(str(cache)).column_names == ["n_tokens"]  # no image bytes copied
