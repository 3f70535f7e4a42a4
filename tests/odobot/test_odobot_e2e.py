"""End to end in Chromium: demonstrations through the executor, the model, a held-out replay."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from agent_runtime.browser.launch import CHROMIUM_PATH
from tests.odobot.fixtures import CharCounter

pytestmark = [pytest.mark.browser, pytest.mark.slow]
if not CHROMIUM_PATH.exists():  # pragma: no cover - the set-up command installs it
    pytest.skip(f"{CHROMIUM_PATH} missing; run the README set-up", allow_module_level=True)

TEMPLATES = ("disc_new_threaded", "disc_reply", "profile_tz")


def test_demonstrate_build_and_replay_a_held_out_task(tmp_path: Path) -> None:
    from envs.lms import generate_world
    from envs.lms.demonstrator import demonstrate
    from envs.lms.tasks import BY_ID, instantiate
    from odobot.events import Trajectory
    from odobot.model import build_model
    from odobot.oracle import OracleAnswerer
    from odobot.pipeline import _fresh, lms_browser
    from odobot.prompts import PromptLog
    from odobot.runner import OdoBot
    from odobot.target import TargetFinder

    demo_world = generate_world(21, banner=False)
    rng = random.Random(0)
    seen: set[str] = set()
    demos = [instantiate(BY_ID[t], demo_world, rng, seen, f"d-{t}") for t in TEMPLATES]
    trajs = []
    with lms_browser(demo_world) as (env, session, rec):
        for inst in demos:
            url = _fresh(env, session)
            rec.begin(inst.task_id)
            rec.goto(url)
            demonstrate(rec, inst)
            assert env.check(inst).ok, inst.text
            trajs.append(Trajectory(id=inst.task_id, events=rec.events, snapshots=rec.snapshots))
    kinds = {e.kind for t in trajs for e in t.events}
    assert {"input", "richtext", "click", "checkbox", "select", "api", "location"} <= kinds
    g, cost, stats = build_model(trajs)
    assert stats.dynamic_vertices >= 2 and cost.prompts  # course cards, navigation lists

    test_world = generate_world(22, banner=True)  # other names, order, and shifted XPaths
    task = instantiate(BY_ID["disc_new_threaded"], test_world, random.Random(5), seen, "t-1")
    with lms_browser(test_world) as (env, session, rec):
        url = _fresh(env, session)
        log = PromptLog(OracleAnswerer(task.params), CharCounter())
        res = OdoBot(g, TargetFinder(g, "lexical"), log, rec).run(task.task_id, task.text, url)
        check = env.check(task)
    assert res.reached, res.reason
    assert check.ok, check.reason
    assert res.element_relocations >= 1  # the banner moved the fixed elements
    assert {c.kind for c in res.prompts} >= {"option", "value", "check"}
