"""The students never train on a held-out instance: the held-out world, phrasings and values are
disjoint from every training instance's, and the exporter refuses records that hold one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_export.odobot.export import HeldOutLeak, export_student
from data_export.odobot.leaks import leaks
from envs.lms.tasks import BY_ID, CONSTANTS, instance_values
from odobot.pipeline import OdoConfig, demo_instances, heldout_instances, training_instances
from tests.helpers.odobot_runs import write_runs

CFG = OdoConfig()


def _worlds_text(world) -> str:
    return json.dumps(world.model_dump(exclude={"layout"}))


def test_no_held_out_text_name_or_value_is_in_any_training_instance() -> None:
    hworld, heldout = heldout_instances(CFG)
    train = [(w, i) for w, insts in training_instances(CFG) for i in insts]
    demo_world, demos = demo_instances(CFG)
    seen_text = "\n".join(i.text for _, i in train) + "\n".join(d.text for d in demos)
    seen_values = {v for _, i in train for v in i.params.values()} | {
        v for d in demos for v in d.params.values()
    }
    worlds = "\n".join({_worlds_text(w) for w, _ in train} | {_worlds_text(demo_world)})
    assert len(heldout) == 60 and hworld.layout.banner and hworld.names == "heldout"
    for inst in heldout:
        tpl = BY_ID[inst.template_id]
        which, k = inst.phrasing.split(":")
        assert which == "heldout" and tpl.heldout_texts[int(k)] not in tpl.texts
        assert inst.text not in seen_text
        for v in instance_values(inst):
            assert v not in seen_values, (inst.task_id, v)
            # Names of the held-out world (courses, people, items) occur in no training world.
            if not v.isdigit():
                assert v not in worlds, (inst.task_id, v)
    # Every course and person of the held-out world is new to the training worlds.
    names = [str(c.data["name"]) for c in hworld.courses()] + [u.name for u in hworld.users]
    assert not [n for n in names if n in worlds]
    assert all(v not in CONSTANTS for i in heldout for v in instance_values(i))


def test_the_exporter_refuses_a_held_out_value_and_writes_nothing(tmp_path: Path) -> None:
    _, heldout = heldout_instances(CFG)
    world, insts = training_instances(CFG)[1]
    runs = tmp_path / "runs"
    write_runs(runs, world, insts[:8])
    clean = export_student("odobot", runs / "odobot", tmp_path / "clean", heldout)
    assert clean["heldout_leaks"] == 0 and clean["splits"]["train"] > 8
    # One record answers with a held-out value: the whole export is refused.
    path = sorted((runs / "baseline").glob("*.json"))[0]
    doc = json.loads(path.read_text())
    leaked = heldout[0].params["title"]
    doc["records"][0]["completion"] = json.dumps({"action": {"type": "type", "text": leaked}})
    path.write_text(json.dumps(doc))
    with pytest.raises(HeldOutLeak, match=leaked):
        export_student("baseline", runs / "baseline", tmp_path / "leaky", heldout)
    assert not (tmp_path / "leaky").exists()


def test_a_held_out_task_text_or_number_answer_is_a_leak() -> None:
    _, heldout = heldout_instances(CFG)
    inst = next(i for i in heldout if i.template_id == "asg_points")

    def rec(user: str, answer: str) -> dict:
        return {"messages": [{"role": "user", "content": user},
                             {"role": "assistant", "content": json.dumps(answer)}]}  # fmt: skip

    points = inst.params["points"]
    assert f"{inst.task_id}: its task text" in leaks([rec(f"Task: {inst.text}", "x")], heldout)
    assert leaks([rec("Task: t", points)], heldout) == [f"{inst.task_id}: value {points!r}"]
    # A bare number elsewhere in a prompt (an id, a port) is no leak.
    assert leaks([rec(f"/courses/{points}/assignments", "x")], heldout) == []
