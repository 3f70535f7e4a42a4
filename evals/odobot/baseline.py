"""The full-observation baseline: the runtime's endpoint middle on the LMS (OdoBot Section VI's
Agent-E stand-in: every label, every step).

Each step the middle gets the task as its command, the URL, every label of the page (up to the
middle's 60) and its recent actions (`agent_runtime/middle/endpoint.build_messages`, text-only),
and answers one Action AST; the guard compiler decides what the executor runs. Its next action
comes from a trained student behind an endpoint (`EndpointMiddle`, targets grounded in the
visible labels, typed text free) or, as the upper bound, from the LMS's scripted demonstrator
(`DemonstratorMiddle`). The episode ends at the task's side effect (the first non-GET request:
every LMS task is one) or at the step cap. Prompts are counted with the same tokenizer as
OdoBot's.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent_runtime.guards import compile_action
from agent_runtime.middle.base import MiddleInput, MiddleOutput, MiddlePolicy
from agent_runtime.middle.endpoint import build_messages
from agent_runtime.middle.format import MiddleFormat, render_answer
from contracts.actions import ActionAST, WaitAction
from contracts.history import RecentHistory
from contracts.top_state import TopState
from envs.lms import TaskInstance
from envs.lms.demonstrator import DemoError, plan_steps, step_ast
from odobot.capture import Recorder
from odobot.tokens import ChatTokenCounter

# The scripted user's page was not there yet (a navigation landing late): it waits, as a
# person would; such steps are counted but never become training records.
_LOADING = ActionAST(action=WaitAction(reason="loading", seconds=0.5))


class BaselineResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task_id: str
    steps: int
    prompt_tokens: int
    completion_tokens: int
    side_effect: str = ""  # "METHOD /path" of the request that ended the episode
    actions: list[str] = Field(default_factory=list)
    error: str = ""
    wall_s: float = 0.0


class DemonstratorMiddle:
    """The upper bound: the scripted demonstrator's next step, written as the middle's answer."""

    name = "oracle (scripted demonstrator)"

    def __init__(self, inst: TaskInstance, fmt: MiddleFormat) -> None:
        self.steps = plan_steps(inst, signed_in=True)
        self.fmt = fmt
        self.done = 0

    def propose(self, inp: MiddleInput) -> MiddleOutput:
        if self.done >= len(self.steps):
            return MiddleOutput(raw=_LOADING.to_json())
        try:
            ast = step_ast(inp.observation, self.steps[self.done])
        except DemoError:
            return MiddleOutput(raw=_LOADING.to_json())
        self.done += 1
        return MiddleOutput(raw=render_answer(ast, inp.observation, self.fmt))


def side_effect(rec: Recorder, since: int) -> str:
    """The first non-GET request recorded after event `since` ("" if none)."""
    for ev in rec.events[since:]:
        if ev.kind == "api" and (ev.method or "GET").upper() != "GET":
            return f"{ev.method} {ev.base_path}"
    return ""


def run_baseline(
    rec: Recorder,
    inst: TaskInstance,
    start_url: str,
    middle: MiddlePolicy,
    counter: ChatTokenCounter,
    fmt: MiddleFormat,
    *,
    max_steps: int,
    records: list[dict[str, Any]] | None = None,
) -> BaselineResult:
    """One episode on a signed-in session; with `records`, each executed click or entry is
    appended as (messages, the post-guard answer) for training."""
    t0 = time.perf_counter()
    rec.begin(f"base-{inst.task_id}")
    rec.goto(start_url)
    res = BaselineResult(task_id=inst.task_id, steps=0, prompt_tokens=0, completion_tokens=0)
    history = RecentHistory()
    top = TopState(intention=inst.text, command=inst.text)
    for step in range(max_steps):
        obs = rec.observe()
        inp = MiddleInput(top=top, observation=obs, history=history)
        messages = build_messages(inp, vision=False, fmt=fmt)
        out = middle.propose(inp)
        res.steps += 1
        res.prompt_tokens += counter.prompt(messages)
        res.completion_tokens += counter.completion(out.raw)
        compiled = compile_action(out.raw, obs, history)
        if compiled.action is None:
            res.error = f"step {step}: blocked by the guards ({compiled.report.detail})"
            break
        since = len(rec.events)
        done = rec.execute(compiled.action)
        action = compiled.action.action if done.executed == "action" else compiled.action.fallback
        res.actions.append(action.model_dump_json(exclude_none=True))
        if records is not None and done.executed == "action" and action.type in ("click", "type"):
            answer = render_answer(compiled.action, obs, fmt)
            records.append({"messages": messages, "completion": answer, "action": action.type})
        history = history.executed(step, obs.url, obs.state_hash, action, done.ok, done.error)
        res.side_effect = side_effect(rec, since)
        if res.side_effect:
            break
    else:
        res.error = f"no side effect after {max_steps} steps"
    res.wall_s = round(time.perf_counter() - t0, 2)
    return res
