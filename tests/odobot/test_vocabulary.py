"""The application's vocabularies (OdoBot IV, the trajectory pick): constants in, world data out."""

from __future__ import annotations

import pytest

from odobot.events import ElementInfo, TrajEvent
from odobot.model import build_model
from odobot.target import TargetFinder, TargetNotFound, generalize
from odobot.vocabulary import select_options, task_values
from tests.odobot.fixtures import CARD_XP, login_then

ROLE = ElementInfo(
    tag="select",
    html='<select name="role"><option value="">Choose...</option><option>Student</option>'
    "<option>Teacher</option></select>",
    options=["Choose...", "Student", "Teacher"],
)
# A recipient list: its options are people, who are also the entries of the people page.
WHO = ElementInfo(tag="select", html="<select name='to'></select>", options=["Ravi Chen", "Zoe Li"])


def _traj(tid: str, steps: list[TrajEvent], api: str):
    """Log in, then the steps, then the side-effect call (the trajectory's target)."""
    last = TrajEvent(id="x#7", kind="api", t=7.0, method="POST", base_path=api)
    tr = login_then(tid, "carol", last)
    evs = tr.events[:7] + [
        s.model_copy(update={"id": f"{tid}#{7 + i}", "t": 7.0 + i}) for i, s in enumerate(steps)
    ]
    evs.append(last.model_copy(update={"id": f"{tid}#{7 + len(steps)}", "t": 20.0}))
    return tr.model_copy(update={"events": evs})


def _select(el: ElementInfo, value: str) -> TrajEvent:
    return TrajEvent(id="x#0", kind="select", t=0.0, base_path="/p", xpath="/s", value=value,
                     text="Role", element=el)  # fmt: skip


def _model():
    # The people page of the world: a card grid whose entries (people) are clicked.
    grid = "".join(
        f"<div class='card'><a>{n}</a><span>x</span></div>"
        for n in ("Ravi Chen", "Zoe Li", "Ana Park")
    )
    html = f"<html><body><main><div>{grid}</div></main></body></html>"
    xpath = "/html[1]/body[1]/main[1]/div[1]/div[1]/a[1]"
    pick = TrajEvent(id="x#0", kind="click", t=0.0, base_path="/people", text="Ravi Chen",
                     xpath=xpath, snapshot="s0")  # fmt: skip
    settings = TrajEvent(
        id="x#0", kind="click", t=0.0, base_path="/", xpath=CARD_XP, text="Settings"
    )
    trajs = [
        _traj("add", [_select(ROLE, "Teacher")], "/api/v1/courses/*/people"),
        _traj("msg", [_select(WHO, "Zoe Li")], "/api/v1/conversations"),
        _traj("rename", [settings], "/api/v1/courses/*/settings"),
        _traj("remove", [pick], "/api/v1/courses/*/people/*"),
    ]
    trajs[3] = trajs[3].model_copy(update={"snapshots": {"s0": html}})
    g, _, _ = build_model(trajs)
    return g


def test_select_options_drop_the_placeholder_and_values_skip_quotes_and_the_first_word() -> None:
    assert select_options(ROLE) == {"student", "teacher"}
    text = 'Add Ravi Chen in the course "Biology 201" as a Teacher.'
    assert task_values(text) == {"ravi chen", "teacher"}


def test_constant_options_are_vocabulary_and_world_data_options_are_not() -> None:
    g = _model()
    vocab = g.graph["vocabularies"]
    assert vocab["add"] == ["student", "teacher"]
    # The recipient list holds a person clicked as a mined entry elsewhere: world data.
    assert vocab["msg"] == [] and vocab["rename"] == []


def test_a_task_naming_a_constant_option_picks_that_trajectory_below_the_floor() -> None:
    g = _model()
    finder = TargetFinder(g, "lexical")
    task = 'Enroll Ana Park in "Physics" as a Student.'
    assert finder.matcher.scores(generalize(task)).max() < finder.matcher.min_similarity
    hit = finder.find(task)
    assert hit.trajectory == "add" and hit.vocabulary_match == ["student"]
    # A person's name is not evidence (people are the world's data), so without a constant
    # option the floor still stops a task the model cannot place.
    with pytest.raises(TargetNotFound, match="demonstrate this task first"):
        finder.find("Send Zoe Li a note about Ravi Chen.")
    # A model saved before vocabularies were recorded matches by score alone.
    del g.graph["vocabularies"]
    with pytest.raises(TargetNotFound, match=r"best similarity 0\.14 < 0\.15"):
        TargetFinder(g, "lexical").find(task)


def test_inspect_lists_the_vocabularies(tmp_path) -> None:
    from typer.testing import CliRunner

    from odobot.graph import save_graph
    from pathwise.cli import app

    (tmp_path / "model").mkdir()
    save_graph(_model(), tmp_path / "model" / "graph.json")
    res = CliRunner().invoke(app, ["odobot", "inspect", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "vocabularies (constant select options, evidence for a trajectory): 1" in res.output
    assert "  add: student, teacher" in res.output and "  msg:" not in res.output
