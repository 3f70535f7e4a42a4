"""The transfer recipe (issue 51): its 29 training tasks, 8 development and 10 test tasks are
the issue's and pairwise disjoint; a recipe that puts a judged task into training fails to
load, naming the field; the export stage refuses a trace row of a judged task."""

from __future__ import annotations

from pathlib import Path

import pytest

from data_export.middle.export import HeldOutTaskError
from pathwise.demo.config import RECIPES, load_demo_config
from pathwise.demo.student import export_stage
from tests.helpers.synthetic_traces import step_row, write_trace

DEV = {"click-test", "click-dialog-2", "click-tab-2-medium", "click-collapsible-nodelay",
       "enter-text-2", "copy-paste-2", "multi-orderings", "simple-arithmetic"}  # fmt: skip
TEST = {"click-test-2", "click-tab-2", "click-collapsible-2-nodelay", "click-checkboxes-transfer",
        "focus-text-2", "enter-time", "read-table-2", "scroll-text", "login-user-popup",
        "use-autocomplete-nodelay"}  # fmt: skip


def test_the_lists_are_the_issues_and_disjoint():
    cfg = load_demo_config("transfer-cpu")
    train = set(cfg.tasks)
    assert len(cfg.tasks) == len(train) == 29
    assert set(cfg.unseen_tasks) == DEV and set(cfg.test_tasks) == TEST
    assert not (train & DEV or train & TEST or DEV & TEST)
    assert set(cfg.heldout_families()) == {f"miniwob/{t}" for t in DEV | TEST}


@pytest.mark.parametrize(("field", "task"), [("unseen_tasks", "click-test"),
                                             ("test_tasks", "click-tab-2")])  # fmt: skip
def test_a_judged_task_in_training_fails_to_load(tmp_path: Path, field: str, task: str):
    text = (RECIPES / "transfer-cpu.yaml").read_text()
    leaked = text.replace("tasks: [click-button,", f"tasks: [{task}, click-button,")
    bad = tmp_path / "leak.yaml"
    bad.write_text(leaked)
    with pytest.raises(
        ValueError, match=rf"leak.yaml: field '{field}': \[.*\] are also in 'tasks'"
    ):
        load_demo_config(str(bad))


def test_a_judged_seed_in_training_fails_to_load(tmp_path: Path):
    text = (RECIPES / "transfer-cpu.yaml").read_text()
    bad = tmp_path / "seeds.yaml"
    bad.write_text(text.replace('test_seeds: "2000-2004"', 'test_seeds: "15-16"'))
    with pytest.raises(ValueError, match=r"field 'test_seeds': seeds \[15, 16\] are also training"):
        load_demo_config(str(bad))


def test_the_export_stage_refuses_a_judged_tasks_rollout(tmp_path: Path):
    cfg = load_demo_config("transfer-cpu")
    write_trace(tmp_path, [step_row("miniwob/click-button/3"), step_row("miniwob/scroll-text/9")])
    with pytest.raises(HeldOutTaskError, match="task miniwob/scroll-text is held out"):
        export_stage(cfg, tmp_path, tmp_path / "export")
    assert not (tmp_path / "export" / "dataset").exists()
