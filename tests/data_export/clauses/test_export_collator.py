"""Exported records pass through TRL's collators (the VL one with the tiny Qwen3-VL processor)."""

from __future__ import annotations

import pytest
from datasets import load_from_disk

from data_export.clauses.export import ClauseExportConfig, export_clauses
from tests.helpers.synthetic_traces import png_bytes, step_row, write_trace

pytestmark = pytest.mark.train
torch = pytest.importorskip("torch")
tiny = pytest.importorskip("base_models.tiny")


@pytest.fixture(scope="module")
def vl_processor(tmp_path_factory):
    from transformers import AutoProcessor

    out = tiny.build("vl", tmp_path_factory.mktemp("tiny-vl"))
    return AutoProcessor.from_pretrained(out)


def test_vl_records_through_trl_collator(tmp_path, run_export, vl_processor):
    from trl.chat_template_utils import qwen3_vl_training_chat_template
    from trl.trainer.sft_trainer import DataCollatorForVisionLanguageModeling

    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "big.png").write_bytes(png_bytes((96, 64), (10, 200, 10)))
    write_trace(tmp_path, [step_row("a"), step_row("b", action="type", screenshot="shots/big.png")])
    _, out = run_export(tmp_path, eval_fraction=0.0)
    ds = load_from_disk(str(out))["train"]
    examples = [{"messages": r["messages"], "images": r["images"]} for r in ds]
    collator = DataCollatorForVisionLanguageModeling(
        processor=vl_processor,
        assistant_only_loss=True,
        chat_template=qwen3_vl_training_chat_template,
    )
    batch = collator(examples)
    assert batch["input_ids"].shape[0] == 2
    assert batch["pixel_values"].shape[0] > 0 and batch["image_grid_thw"].shape == (2, 3)
    pad = vl_processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    assert ((batch["input_ids"] == pad).sum(dim=1) > 0).all()
    tok = vl_processor.tokenizer
    for i, rec in enumerate(ds):
        trained = batch["input_ids"][i][batch["labels"][i] != -100]
        text = tok.decode(trained)
        target = rec["messages"][2]["content"][0]["text"]
        assert text.startswith(target), text  # loss falls on the Action AST JSON only
        assert "Command:" not in text and "middle layer" not in text


def test_clause_records_through_trl_text_collator(tmp_path):
    from trl.trainer.sft_trainer import DataCollatorForLanguageModeling

    tok = tiny.build_tokenizer("text")
    export_clauses(ClauseExportConfig(out=tmp_path / "cl", n=40, eval_n=4, seed=5))
    ds = load_from_disk(str(tmp_path / "cl"))["train"]
    examples = []
    for r in ds.select(range(4)):
        enc = tok.apply_chat_template(r["messages"], tokenize=True, return_dict=True)
        examples.append({"input_ids": enc["input_ids"]})
    batch = DataCollatorForLanguageModeling(pad_token_id=tok.pad_token_id)(examples)
    assert batch["input_ids"].shape[0] == 4
    assert batch["labels"].shape == batch["input_ids"].shape
    assert r["messages"][2]["content"] in tok.decode(examples[-1]["input_ids"])
