"""Base-task-grouped hash split: siblings never cross, deterministic, degenerate splits warned."""

from __future__ import annotations

import json
from collections import defaultdict

from datasets import load_from_disk
from hypothesis import given, settings
from hypothesis import strategies as st

from data_export.split import DEFAULT_SEED, assign, bucket, split_warnings
from tests.helpers.synthetic_traces import step_row, write_trace

PERSONAS = ["explicit_control", "trust_first_verifier", "spec_exact_researcher"]


@given(
    st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=200),
    st.floats(0.0, 1.0),
    st.integers(0, 2**32),
)
def test_assign_is_a_function_of_base_task(bases, frac, seed):
    sides = defaultdict(set)
    for b in bases + bases[::-1]:
        sides[b].add(assign(b, frac, seed))
    assert all(len(s) == 1 for s in sides.values())
    assert all(0.0 <= bucket(b, seed) < 1.0 for b in bases)


def test_fraction_is_roughly_respected():
    ev = sum(assign(f"task-{i}") == "eval" for i in range(20000))
    assert 0.07 < ev / 20000 < 0.09
    assert [assign(f"task-{i}") for i in range(50)] == [
        assign(f"task-{i}", 0.08, DEFAULT_SEED) for i in range(50)
    ]
    assert [assign(f"task-{i}", 0.5, 1) for i in range(64)] != [
        assign(f"task-{i}", 0.5, 2) for i in range(64)
    ]


@settings(max_examples=5, deadline=None)
@given(
    st.lists(
        st.from_regex(r"[a-z]{1,6}-[0-9]{1,3}", fullmatch=True),
        min_size=2,
        max_size=25,
        unique=True,
    )
)
def test_export_never_splits_a_base_task(tmp_path_factory, bases):
    root = tmp_path_factory.mktemp("tr")
    rows = [
        step_row(b, persona=p, rollout=f"{b}/{p}", step=s)
        for b in bases
        for p in PERSONAS
        for s in range(2)
    ]
    write_trace(root, rows[: len(rows) // 2], name="traces/a.jsonl")
    write_trace(root, rows[len(rows) // 2 :], name="traces/b.jsonl")
    from data_export.middle.export import SFTExportConfig, export_sft

    out = root / "out"
    m = export_sft(SFTExportConfig(traces=root, out=out, eval_fraction=0.3))
    dd = load_from_disk(str(out))
    train = set(dd["train"]["base_task_id"])
    ev = set(dd["eval"]["base_task_id"])
    assert not train & ev
    assert train | ev == set(bases)
    assert m["split"]["base_tasks_on_both_sides"] == 0
    assert len(dd["train"]) + len(dd["eval"]) == len(rows)
    for b in ev:
        assert assign(b, 0.3) == "eval"


def test_empty_eval_is_warned_and_fraction_adjustable(tmp_path, run_export, caplog):
    # With seed 20260606 and 8%, this single base task lands on train.
    base = next(f"only-{i}" for i in range(100) if assign(f"only-{i}") == "train")
    write_trace(tmp_path, [step_row(base, persona=p) for p in PERSONAS])
    m, out = run_export(tmp_path)
    assert m["split"]["sizes"] == {"train": 3, "eval": 0}
    assert any("eval split is empty" in w and "--eval-fraction" in w for w in m["warnings"])
    assert "eval split is empty" in caplog.text
    assert len(load_from_disk(str(out))["eval"]) == 0  # empty split still loads
    m2, _ = run_export(tmp_path, eval_fraction=1.0)
    assert m2["split"]["sizes"] == {"train": 0, "eval": 3}
    assert not m2["warnings"]  # all-eval was asked for explicitly
    assert split_warnings(0, 3, 1, 0.5) == [
        "train split is empty: every base task hashed to eval; lower --eval-fraction"
    ]


def test_prompt_overlap_reported(tmp_path, run_export):
    # Same prompt text under two base tasks on different sides -> overlap is counted.
    a = next(f"x{i}" for i in range(200) if assign(f"x{i}", 0.5) == "train")
    b = next(f"x{i}" for i in range(200) if assign(f"x{i}", 0.5) == "eval")
    ra, rb = step_row(a), step_row(a)
    rb.contract.base_task_id = b
    write_trace(tmp_path, [ra, rb, step_row(b, step=1)])
    m, out = run_export(tmp_path, eval_fraction=0.5)
    assert m["prompt_overlap"] == {"eval_prompts": 2, "eval_prompts_in_train": 1, "share": 0.5}
    assert json.loads((out / "manifest.json").read_text())["prompt_overlap"]["share"] == 0.5
