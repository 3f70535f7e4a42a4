"""The full-observation baseline: the endpoint middle's prompt (every label, every step).

WebRider's endpoint middle (agent_runtime/middle/endpoint.py) sends the task command, the URL
and all labels of the page at each step, text-only here; its answer is one Action AST. The
actions come from the LMS's scripted demonstrator (an oracle, like OdoBot's answerer), and the
prompt each step would cost is counted with the same tokenizer as OdoBot's prompts.
"""

from __future__ import annotations

import time

from pydantic import BaseModel, ConfigDict

from agent_runtime.middle.base import MiddleInput
from agent_runtime.middle.endpoint import build_messages
from contracts.actions import ActionAST
from contracts.observation import Observation
from contracts.top_state import TopState
from envs.lms import TaskInstance
from envs.lms.demonstrator import DemoError, demonstrate
from odobot.capture import Recorder
from odobot.tokens import ChatTokenCounter


class BaselineResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task_id: str
    steps: int
    prompt_tokens: int
    completion_tokens: int
    error: str = ""
    wall_s: float = 0.0


def run_baseline(
    rec: Recorder, inst: TaskInstance, start_url: str, counter: ChatTokenCounter
) -> BaselineResult:
    t0 = time.perf_counter()
    usage = {"prompt": 0, "completion": 0, "steps": 0}

    def count(obs: Observation, ast: ActionAST) -> None:
        inp = MiddleInput(top=TopState(intention=inst.text, command=inst.text), observation=obs)
        usage["prompt"] += counter.prompt(build_messages(inp, vision=False))
        usage["completion"] += counter.completion(ast.model_dump_json())
        usage["steps"] += 1

    rec.begin(f"base-{inst.task_id}")
    rec.goto(start_url)
    error = ""
    try:
        demonstrate(rec, inst, on_step=count)
    except DemoError as e:
        error = str(e)
    return BaselineResult(
        task_id=inst.task_id,
        steps=usage["steps"],
        prompt_tokens=usage["prompt"],
        completion_tokens=usage["completion"],
        error=error,
        wall_s=round(time.perf_counter() - t0, 2),
    )
