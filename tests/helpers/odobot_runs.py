"""Synthetic OdoBot training runs (the files evals/odobot/collect.py writes), without a browser.

Each instance becomes one run file per agent: OdoBot's course choice and one value prompt per
typed field, and the baseline's course click and one typed field, each with the answer the
instance's parameters give, as the real training runs keep them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_runtime.middle.base import MiddleInput
from agent_runtime.middle.endpoint import build_messages
from agent_runtime.middle.format import FORMATS, render_answer
from contracts.actions import ActionAST, ClickAction, TypeAction
from contracts.top_state import TopState
from envs.lms.tasks import TaskInstance
from evals.odobot.collect import run_doc
from odobot.prompts import completion_for, option_names, option_prompt, value_prompt
from tests.helpers.observations import el, obs

ECHO = FORMATS["echo"]
TYPED = ("title", "name", "message", "body", "comment", "bio", "subject", "display_name")


def _odobot_records(inst: TaskInstance, courses: list[str]) -> list[dict[str, Any]]:
    out = []
    if "course" in inst.params:
        names = option_names(courses)
        html = [f'<a href="/courses/{i}"><span>{c}</span></a>' for i, c in enumerate(courses)]
        p = option_prompt(inst.text, html, names, courses[-1])
        out.append({"kind": "option", "user": p.messages[-1]["content"],
                    "completion": completion_for(inst.params["course"])})  # fmt: skip
    for key in TYPED:
        if key in inst.params:
            p = value_prompt(inst.text, f'<input id="f-{key}" name="{key}" type="text">', {})
            out.append({"kind": "value", "user": p.messages[-1]["content"],
                        "completion": completion_for(inst.params[key])})  # fmt: skip
    return out


def _baseline_records(inst: TaskInstance, courses: list[str]) -> list[dict[str, Any]]:
    top = TopState(intention=inst.text, command=inst.text)
    page = obs(*(el(i, "link", c) for i, c in enumerate(courses)), el(9, "textbox", "Title"))
    out = []
    if "course" in inst.params:
        ast = ActionAST(action=ClickAction(target=courses.index(inst.params["course"])))
        msgs = build_messages(MiddleInput(top=top, observation=page), vision=False, fmt=ECHO)
        out.append({"messages": msgs, "completion": render_answer(ast, page, ECHO),
                    "action": "click"})  # fmt: skip
    typed = [k for k in TYPED if k in inst.params]
    if typed:
        ast = ActionAST(action=TypeAction(target=9, text=inst.params[typed[0]]))
        msgs = build_messages(MiddleInput(top=top, observation=page), vision=False, fmt=ECHO)
        out.append({"messages": msgs, "completion": render_answer(ast, page, ECHO),
                    "action": "type"})  # fmt: skip
    return out


def write_runs(folder: Path, world: Any, insts: list[TaskInstance]) -> None:
    """FOLDER/odobot/<task>.json and FOLDER/baseline/<task>.json for every instance."""
    courses = [str(c.data["name"]) for c in world.courses()]
    for agent, make in (("odobot", _odobot_records), ("baseline", _baseline_records)):
        (folder / agent).mkdir(parents=True, exist_ok=True)
        for inst in insts:
            doc = run_doc(inst, world.seed, True, "", make(inst, courses))
            (folder / agent / f"{inst.task_id}.json").write_text(json.dumps(doc))
