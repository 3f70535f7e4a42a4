"""Session fixtures for the training tests: tiny models and datasets built locally."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.training.trainutil import (
    OVERLENGTH_TEXT,
    VL_RECIPE,
    ZERO2_2PROC,
    ok,
    pathwise_train,
    run_cmd,
    sft_python,
)

try:  # the training tests need the [train] extra; without it they are not collected at all
    import trl  # noqa: F401
except ImportError:
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def tiny_vl(tmp_path_factory) -> Path:
    from base_models.tiny import build

    return build("vl", tmp_path_factory.mktemp("tiny") / "vl")


@pytest.fixture(scope="session")
def tiny_text(tmp_path_factory) -> Path:
    from base_models.tiny import build

    return build("text", tmp_path_factory.mktemp("tiny") / "text")


def _with_overlength(path: Path, kind: str) -> Path:
    """The synthetic dataset plus one train example far longer than max_length."""
    from datasets import concatenate_datasets, load_from_disk

    from training.tiny_data import build

    build(kind, path / "base", n_train=32, n_eval=4)
    dd = load_from_disk(str(path / "base"))
    long = dd["train"].select([0]).to_list()[0]
    if kind == "vl":
        long["messages"][1]["content"][1]["text"] = OVERLENGTH_TEXT
    else:
        long["messages"][1]["content"] = OVERLENGTH_TEXT
    from datasets import Dataset

    extra = Dataset.from_list([long], features=dd["train"].features)
    dd["train"] = concatenate_datasets([dd["train"], extra])
    dd.save_to_disk(str(path / "with_long"))
    return path / "with_long"


@pytest.fixture(scope="session")
def vl_data(tmp_path_factory) -> Path:
    return _with_overlength(tmp_path_factory.mktemp("vl_data"), "vl")


@pytest.fixture(scope="session")
def text_data(tmp_path_factory) -> Path:
    return _with_overlength(tmp_path_factory.mktemp("text_data"), "text")


@pytest.fixture(scope="session")
def vl_run(tiny_vl, vl_data, tmp_path_factory) -> Path:
    """The single-process tiny VL run (micro 2, accum 1), shared by several tests."""
    out = tmp_path_factory.mktemp("runs") / "vl"
    ok(sft_python(VL_RECIPE, tiny_vl, vl_data, out))
    return out


@pytest.fixture(scope="session")
def zero2_run(tiny_vl, vl_data, tmp_path_factory) -> tuple[Path, str]:
    """`pathwise train` with DeepSpeed ZeRO-2 over two CPU processes on this machine (micro 1
    each, the same global batch of 2): the run folder and what the command printed."""
    pytest.importorskip("deepspeed")
    out = tmp_path_factory.mktemp("runs") / "zero2"
    cmd = pathwise_train(VL_RECIPE, tiny_vl, vl_data, out, "--accelerate-config", ZERO2_2PROC)
    proc = run_cmd([*cmd, "--micro-batch", "1"])
    ok(proc)
    return out, proc.stderr
