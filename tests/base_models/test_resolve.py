"""A pipeline's base as a registry entry, a model directory or a hub id, resolved to one local
directory through the Hugging Face cache (built here: nothing reaches the hub)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from base_models.importer import ImportError_
from base_models.resolve import resolve_base
from tests.helpers.hf_cache import REVISION, hf_cache, offline

QWEN = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3"}


def test_a_hub_entry_of_the_registry_is_its_cached_snapshot(tmp_path, monkeypatch) -> None:
    snap = hf_cache(tmp_path, "Qwen/Qwen3-4B-Instruct-2507", QWEN)
    offline(monkeypatch, tmp_path)
    got = resolve_base("qwen3-4b-instruct-2507")
    assert Path(got["model"]) == snap
    assert got["provenance"] == {"source": "hub", "hub_id": "Qwen/Qwen3-4B-Instruct-2507",
                                 "revision": REVISION, "name": "qwen3-4b-instruct-2507",
                                 "license": "Apache-2.0"}  # fmt: skip
    # A hub id the registry does not know goes the same way.
    hf_cache(tmp_path, "org/other-model", QWEN)
    assert resolve_base("org/other-model")["provenance"]["hub_id"] == "org/other-model"


def test_an_uncached_hub_id_offline_is_one_line_naming_it(tmp_path, monkeypatch) -> None:
    offline(monkeypatch, tmp_path)
    with pytest.raises(ImportError_) as err:
        resolve_base("org/not-cached")
    msg = str(err.value)
    assert "org/not-cached" in msg and "not in the Hugging Face cache" in msg
    assert "\n" not in msg
    assert not (tmp_path / "hub" / "models--org--not-cached" / "snapshots").exists()


def test_a_model_directory_is_itself_and_a_bad_name_says_what_is_expected(tmp_path) -> None:
    model = tmp_path / "m"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(QWEN))
    assert resolve_base(str(model)) == {"model": str(model), "provenance": {"path": str(model)}}
    empty = tmp_path / "empty"
    empty.mkdir()
    for bad in (str(empty), "no-such-model"):
        with pytest.raises(ImportError_, match=r"registry entry .* a model directory .* hub id"):
            resolve_base(bad)


def test_a_wheel_entry_needs_a_folder_to_be_imported_into() -> None:
    with pytest.raises(ImportError_, match="set base_dir"):
        resolve_base("smollm2-135m-instruct")
