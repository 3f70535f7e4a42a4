"""Secrets never leave the page on the LMS (issue 31): OdoBot's demonstrations log in through the
executor, the model is built from them, and a held-out task in another world (another password)
logs in by replay. Every artefact (trajectories with their DOM snapshots, the graph, the prompts,
the observations) names the password only as {{secret:password}}; the LMS accepted the real one."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agent_runtime.browser.launch import CHROMIUM_PATH
from tests.odobot.fixtures import CharCounter

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM_PATH.exists(), reason=f"{CHROMIUM_PATH} missing"),
]


def _forms(secret: str) -> set[str]:
    from urllib.parse import quote

    return {secret, quote(secret, safe=""), json.dumps(secret)[1:-1]}


def test_lms_login_by_demonstration_and_replay_keeps_the_password(tmp_path: Path) -> None:
    from envs.lms import generate_world
    from envs.lms.demonstrator import demonstrate
    from envs.lms.tasks import BY_ID, instantiate
    from odobot.events import Trajectory
    from odobot.graph import save_graph
    from odobot.model import build_model
    from odobot.oracle import OracleAnswerer
    from odobot.pipeline import _fresh, lms_browser
    from odobot.prompts import PromptLog
    from odobot.runner import OdoBot
    from odobot.target import TargetFinder

    demo_world, test_world = generate_world(21, banner=False), generate_world(22, banner=False)
    secrets = [demo_world.me.password, test_world.me.password]
    assert secrets[0] != secrets[1] and min(map(len, secrets)) >= 10
    seen: set[str] = set()
    demos = [
        instantiate(BY_ID[t], demo_world, random.Random(0), seen, f"d-{t}")
        for t in ("profile_tz", "disc_reply")
    ]
    assert all(d.params["password"] == "{{secret:password}}" for d in demos)
    trajs, observed = [], []
    with lms_browser(demo_world) as (env, session, rec):
        for inst in demos:
            rec.begin(inst.task_id)
            rec.goto(_fresh(env, session))
            demonstrate(rec, inst, on_step=lambda obs, ast: observed.append(obs))
            assert env.check(inst).ok, inst.text  # logged in: the LMS got the real password
            trajs.append(Trajectory(id=inst.task_id, events=rec.events, snapshots=rec.snapshots))
    fields = [el for o in observed for el in o.labels if el.input_type == "password"]
    assert fields and {el.value for el in fields} <= {"", "••••••••"}
    typed = [e.value for t in trajs for e in t.events if e.kind == "input" and e.value]
    assert "{{secret:password}}" in typed
    g, _, _ = build_model(trajs)
    save_graph(g, tmp_path / "graph.json")
    for t in trajs:
        (tmp_path / f"{t.id}.json").write_text(t.model_dump_json())

    task = instantiate(BY_ID["profile_tz"], test_world, random.Random(5), seen, "t-1")
    with lms_browser(test_world) as (env, session, rec):
        log = PromptLog(OracleAnswerer(task.params), CharCounter())
        res = OdoBot(g, TargetFinder(g, "lexical"), log, rec).run(
            task.task_id, task.text, _fresh(env, session)
        )
        assert res.reached and env.check(task).ok, res.reason  # replay logged in too
    (tmp_path / "prompts.json").write_text(json.dumps([c.model_dump() for c in log.calls]))
    (tmp_path / "observations.json").write_text(json.dumps([o.model_dump() for o in observed]))
    for p in tmp_path.iterdir():
        text = p.read_text(encoding="utf-8")
        for s in secrets:
            for form in _forms(s):
                assert form not in text, f"{p.name} holds a password"
