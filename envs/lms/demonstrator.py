"""A scripted LMS user: OdoBot Section VI's demonstrations, recorded through the real executor.

The script knows the LMS (it is the environment's own demonstrator and reads the instance's
parameters); each step finds its element among the executor's labels by visible text and
runs one Action AST, so what gets recorded is what any agent driving the executor produces.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from contracts.actions import ActionAST, ClickAction, TypeAction
from contracts.observation import ElementLabel, Observation
from envs.lms.sections import section
from envs.lms.tasks import BY_ID, TaskInstance

_ROLES = {
    "click": ("link", "button"),
    "type": ("textbox",),
    "select": ("combobox",),
    "check": ("checkbox",),
    "radio": ("radio",),
}


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["click", "type", "select", "check", "radio"]
    text: str  # the element's visible text (label text for fields)
    value: str = ""


class Driver(Protocol):
    def observe(self) -> Observation: ...
    def execute(self, ast: ActionAST) -> object: ...


class DemoError(RuntimeError):
    """A scripted step found no element to act on (the page is not what the script expects)."""


def plan_steps(inst: TaskInstance, *, signed_in: bool = False) -> list[Step]:
    """The clicks and entries that complete `inst`, from the login page on (from the dashboard
    of a session already signed in with `signed_in`)."""
    tpl = BY_ID[inst.template_id]
    sec = section(tpl.section)
    act = sec.action(tpl.action)
    p = inst.params
    steps = []
    if not signed_in:
        steps += [
            Step(kind="type", text="Username", value=p["username"]),
            Step(kind="type", text="Password", value=p["password"]),
            Step(kind="click", text="Log in"),
        ]
    if sec.scope == "course":
        steps += [Step(kind="click", text=p["course"]), Step(kind="click", text=sec.title)]
    else:
        steps.append(Step(kind="click", text=sec.title))
    if act.on_item and not sec.singleton:
        steps.append(Step(kind="click", text=p["item"]))
    steps.append(Step(kind="click", text=act.button))
    for f in act.fields:
        if f.kind == "checkbox":
            if p[f.name] == "yes":
                steps.append(Step(kind="check", text=f.label))
        elif f.kind == "select":
            steps.append(Step(kind="select", text=f.label, value=p[f.name]))
        elif f.kind == "radio":
            steps.append(Step(kind="radio", text=p[f.name]))
        else:
            steps.append(Step(kind="type", text=f.label, value=p[f.name]))
    if act.fields:
        steps.append(Step(kind="click", text="Save"))
    return steps


def _norm(s: str) -> str:
    return " ".join(s.split()).lower()


def find_label(obs: Observation, step: Step) -> ElementLabel:
    roles = _ROLES[step.kind]
    want = _norm(step.text)
    for el in obs.labels:
        if el.role in roles and _norm(el.text) == want:
            return el
    raise DemoError(f"no {'/'.join(roles)} labeled {step.text!r} on {obs.url}")


def observe_for(driver: Driver, step: Step, tries: int = 12, pause_s: float = 0.5) -> Observation:
    """Observe until the step's element is on the page: a click's navigation (a form's fetch,
    then location.assign) can land after the recorder's quiet period on a loaded machine."""
    for _ in range(tries - 1):
        obs = driver.observe()
        with contextlib.suppress(DemoError):
            find_label(obs, step)
            return obs
        time.sleep(pause_s)
    return driver.observe()


def step_ast(obs: Observation, step: Step) -> ActionAST:
    el = find_label(obs, step)
    if step.kind in ("type", "select"):
        return ActionAST(action=TypeAction(target=el.label, text=step.value))
    return ActionAST(action=ClickAction(target=el.label))


def demonstrate(
    driver: Driver,
    inst: TaskInstance,
    on_step: Callable[[Observation, ActionAST], None] | None = None,
) -> int:
    """Run the scripted steps on `driver` (already on the login page); returns steps taken.

    `on_step` sees each observation and the action chosen on it (the full-observation
    baseline counts its prompt there).
    """
    steps = plan_steps(inst)
    for step in steps:
        obs = observe_for(driver, step)
        ast = step_ast(obs, step)
        if on_step is not None:
            on_step(obs, ast)
        driver.execute(ast)
    return len(steps)
