"""End to end in Chromium: demonstrations through the executor, the model, a held-out replay with
the oracle, and one with the oracle disabled, answered over HTTP by a model that sees only its
prompts: the task's values reach the LMS only through that model's answers."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from agent_runtime.browser.launch import CHROMIUM_PATH
from tests.helpers.fake_openai import FakeOpenAI
from tests.odobot.fixtures import CharCounter

pytestmark = [pytest.mark.browser, pytest.mark.slow]
if not CHROMIUM_PATH.exists():  # pragma: no cover - the set-up command installs it
    pytest.skip(f"{CHROMIUM_PATH} missing; run the README set-up", allow_module_level=True)

TEMPLATES = ("disc_new_threaded", "disc_reply", "profile_tz")
MARK = "typed by the model"


@pytest.fixture(scope="module")
def model() -> tuple[Any, set[str]]:
    """Three demonstrations on a training world, and the graph model built from them."""
    from envs.lms import generate_world
    from envs.lms.demonstrator import demonstrate
    from envs.lms.tasks import BY_ID, instantiate
    from odobot.events import Trajectory
    from odobot.model import build_model
    from odobot.pipeline import _fresh, lms_browser

    demo_world = generate_world(21, banner=False)
    rng = random.Random(0)
    seen: set[str] = set()
    demos = [instantiate(BY_ID[t], demo_world, rng, seen, f"demo-{t}") for t in TEMPLATES]
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
    return g, seen


def _heldout_task(seen: set[str]) -> tuple[Any, Any]:
    from envs.lms import generate_world
    from envs.lms.tasks import BY_ID, instantiate

    # Other names, order and shifted XPaths, and a phrasing no demonstration used.
    world = generate_world(22, banner=True, names="heldout")
    tpl = BY_ID["disc_new_threaded"]
    return world, instantiate(tpl, world, random.Random(5), seen, "t-1", "heldout")


def test_replay_a_held_out_task_with_the_oracle(model) -> None:
    from odobot.oracle import OracleAnswerer
    from odobot.pipeline import demo_id, lms_browser, signed_in
    from odobot.prompts import PromptLog
    from odobot.runner import OdoBot
    from odobot.target import TargetFinder

    g, seen = model
    world, task = _heldout_task(seen)
    with lms_browser(world) as (env, session, rec):
        url = signed_in(env, session)
        log = PromptLog(OracleAnswerer(task.params, demo_id(task.template_id)), CharCounter())
        bot = OdoBot(g, TargetFinder(g, "lexical"), log, rec, pick_k=5)
        res = bot.run(task.task_id, task.text, url)
        check = env.check(task)
    assert res.reached, res.reason
    assert check.ok, check.reason
    assert res.element_relocations >= 1  # the banner moved the fixed elements
    assert {c.kind for c in res.prompts} >= {"trajectory", "option", "value", "check"}
    assert all(c.completion == json.dumps(c.answer) for c in res.prompts)


def _prompt_only_model(typed: list[str]):
    """A stand-in model: it sees one request, ticks a box its task line names, names the option
    the task line names (or the demonstrated one), and types text of its own, never the task's."""

    def answer(body: dict[str, Any]) -> str:
        schema = body["response_format"]["json_schema"]["schema"]
        user = body["messages"][-1]["content"]
        task = user.splitlines()[0]
        if schema.get("enum") == ["yes", "no"]:
            box = re.search(r'name="([^"]+)"', user)
            return json.dumps("yes" if box and box.group(1) in task else "no")
        if "enum" in schema:
            named = [c for c in schema["enum"] if re.search(rf"\b{re.escape(c)}\b", task)]
            shown = re.search(r'the choice was "(.*)"', user)
            if not named and shown and shown.group(1) in schema["enum"]:
                named = [shown.group(1)]
            return json.dumps((named or schema["enum"])[0])
        typed.append(f"{MARK} {len(typed) + 1}")
        return json.dumps(typed[-1])

    return answer


def test_with_the_oracle_disabled_values_come_only_from_the_students_answer(model) -> None:
    from odobot.pipeline import lms_browser, signed_in
    from odobot.prompts import PromptLog
    from odobot.runner import OdoBot
    from odobot.student import StudentAnswerer
    from odobot.target import TargetFinder
    from serving.client import ChatClient

    g, seen = model
    world, task = _heldout_task(seen)
    typed: list[str] = []
    with (
        FakeOpenAI([], answer=_prompt_only_model(typed)).running() as fake,
        ChatClient(fake.base_url, "student") as client,
        lms_browser(world) as (env, session, rec),
    ):
        url = signed_in(env, session)
        # Nothing of the instance but its text reaches the agent: no parameters, no oracle.
        log = PromptLog(StudentAnswerer(client), CharCounter())
        res = OdoBot(g, TargetFinder(g, "lexical"), log, rec, pick_k=5).run(
            task.task_id, task.text, url
        )
        course = next(c for c in env.store.courses() if c["data"]["name"] == task.params["course"])
        rows = env.store.items("discussions", course["id"])
        check = env.check(task)
    assert res.reached, res.reason
    assert typed == [f"{MARK} 1", f"{MARK} 2"]  # title, then message: what the model answered
    new = [r for r in rows if r["data"]["title"] == typed[0]]
    assert len(new) == 1 and new[0]["data"]["message"] == typed[1] and new[0]["data"]["threaded"]
    # The task's own values never reached the LMS: they were in no answer.
    assert not any(task.params["title"] in json.dumps(r["data"]) for r in rows)
    assert not check.ok
    # Each request carried the task's text and no credential.
    users = [r["messages"][-1]["content"] for r in fake.requests]
    assert all(u.startswith(f"Task: {task.text}\n") for u in users)
    sent = json.dumps(fake.requests)
    assert world.me.password not in sent and "username" not in sent
