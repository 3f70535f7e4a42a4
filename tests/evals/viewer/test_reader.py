"""Reading runs while they are written, attributing bad lines, and first divergence."""

from __future__ import annotations

import os
from pathlib import Path

from evals.viewer.contract_view import contract_view, utterance_of
from evals.viewer.reader import RunReader
from evals.viewer.views import first_divergence, summarize
from tests.helpers.viewer_runs import FIXTURE, append, crafted_outcomes

TRACE = Path("traces") / "shard-0-of-1.jsonl"


def test_reads_the_fixture_runs_and_classifies_outcomes() -> None:
    teacher = RunReader(FIXTURE / "teacher").refresh()
    perturbed = RunReader(FIXTURE / "perturbed").refresh()
    assert sorted(teacher.rollouts) == [
        "miniwob/click-button/100@0",
        "miniwob/click-checkboxes/101@0",
        "miniwob/enter-text/100@0",
    ]
    assert teacher.errors == [] and perturbed.errors == []
    status = {rid: summarize(0, ro).status for rid, ro in perturbed.rollouts.items()}
    assert status["miniwob/click-checkboxes/101@0"] == "fail"
    assert status["miniwob/click-button/100@0"] == "success"
    # The perturbed middle clicked the wrong checkbox on its first step; the rest agree.
    cb = "miniwob/click-checkboxes/101@0"
    a, b = teacher.rollouts[cb].ordered_steps(), perturbed.rollouts[cb].ordered_steps()
    assert first_divergence(a, b) == 0
    cbtn = "miniwob/click-button/100@0"
    same = teacher.rollouts[cbtn].ordered_steps(), perturbed.rollouts[cbtn].ordered_steps()
    assert first_divergence(*same) is None
    assert first_divergence(a, a[:2]) == 2  # one side ended early


def test_contract_view_takes_the_utterance_from_the_first_step() -> None:
    ro = RunReader(FIXTURE / "teacher").refresh().rollouts["miniwob/click-checkboxes/101@0"]
    first = ro.ordered_steps()[0]
    assert utterance_of(first).startswith("Select ") and "Submit" in utterance_of(first)
    view = contract_view(first.contract, first, None)
    assert view.source == "trace" and view.persona == "explicit_control"
    assert "no latent preference" in view.persona_criterion
    assert view.hard_constraints == ["The page's own raw reward is 1 at the end of the episode."]


def test_incremental_reads_while_a_batch_appends(runs: Path) -> None:
    run = runs / "teacher"
    trace = run / TRACE
    reader = RunReader(run).refresh()
    assert len(reader.rollouts) == 3
    lines = trace.read_text().splitlines(keepends=True)
    step_row = next(ln for ln in lines if '"kind":"step"' in ln)
    new = step_row.replace("miniwob/click-button/100@0", "miniwob/click-button/100@1")
    # Half a line, as a writer leaves it mid-write: not an error, not a row yet.
    append(trace, new[:40])
    reader.refresh()
    assert reader.errors == [] and len(reader.rollouts) == 3
    assert reader.pending[str(TRACE)] == 40
    append(trace, new[40:])
    reader.refresh()
    ro = reader.rollouts["miniwob/click-button/100@1"]
    assert summarize(0, ro).status == "running" and len(ro.steps) == 1
    assert reader.pending[str(TRACE)] == 0
    for o in crafted_outcomes():
        append(trace, o.model_dump_json() + "\n")
    reader.refresh()
    got = {rid: summarize(0, reader.rollouts[rid]) for rid in ("shop/lamp/1@0", "shop/lamp/2@0")}
    assert got["shop/lamp/1@0"].status == "fail" and got["shop/lamp/1@0"].cgs is False
    assert got["shop/lamp/1@0"].gates == {
        "terminal": True,
        "hard": True,
        "evidence": False,
        "answer": True,
        "blocker": True,
    }
    assert got["shop/lamp/2@0"].status == "access" and got["shop/lamp/2@0"].access_failure == (
        "captcha"
    )
    assert summarize(0, reader.rollouts["shop/lamp/3@0"]).status == "runtime"


def test_bad_lines_are_attributed_and_the_rest_still_reads(runs: Path) -> None:
    run = runs / "perturbed"
    trace = run / TRACE
    lines = trace.read_text().splitlines(keepends=True)
    target = next(
        i for i, ln in enumerate(lines) if '"step_index":2' in ln and "click-checkboxes" in ln
    )
    lines[target] = lines[target].replace('"kind":"step"', '"kind":"step","bogus":1')
    lines.insert(1, "{not json at all\n")
    trace.write_text("".join(lines))
    reader = RunReader(run).refresh()
    assert [(e.line, e.rollout_id) for e in reader.errors] == [(2, None)]
    ro = reader.rollouts["miniwob/click-checkboxes/101@0"]
    assert len(ro.errors) == 1 and ro.errors[0].line == target + 2  # +1 inserted, 1-based
    assert "bogus" in ro.errors[0].message
    assert sorted(ro.steps) == [0, 1, 3, 4] and ro.outcome is not None
    assert len(reader.rollouts) == 3


def test_a_replaced_trace_file_is_read_again(runs: Path) -> None:
    run = runs / "teacher"
    trace = run / TRACE
    reader = RunReader(run).refresh()
    kept = [ln for ln in trace.read_text().splitlines(keepends=True) if "click-button" in ln]
    tmp = trace.with_suffix(".new")
    tmp.write_text("".join(kept))
    os.replace(tmp, trace)
    reader.refresh()
    assert list(reader.rollouts) == ["miniwob/click-button/100@0"]


def test_a_run_without_traces_is_an_error_not_a_crash(tmp_path: Path) -> None:
    reader = RunReader(tmp_path).refresh()
    assert reader.rollouts == {} and "no traces/ folder" in reader.errors[0].message
