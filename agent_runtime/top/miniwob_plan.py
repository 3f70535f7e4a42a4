"""The plan a MiniWoB++ utterance becomes: steps, reveals and interrupts (WebRider top layer).

Steps are re-checked against every observation, so a plan survives a failed or repeated step:
a `state` step is done when the page shows it done, a `once` step after an executed click/type
for it; a step with `reveal` first opens tabs/sections until its target is visible; `interrupts`
pre-empt the plan whenever they apply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from contracts.command import Command, Target
from contracts.observation import ElementLabel, Observation

CommandFn = Callable[[Observation], Command | None]

# Returned by a page-derived step when the page shows it is not needed (e.g. no list open).
SKIP = Command("wait", Target(text="skip"))


@dataclass(frozen=True)
class Reveal:
    """Elements to open, one at a time, until the step's target becomes visible."""

    role: str | None = None
    text_pattern: str | None = None  # regex matched against the element text

    def candidates(self, obs: Observation) -> list[ElementLabel]:
        out = []
        for el in obs.labels:
            if self.role and el.role != self.role:
                continue
            if self.text_pattern and not re.fullmatch(self.text_pattern, " ".join(el.text.split())):
                continue
            out.append(el)
        return out


@dataclass
class PlanStep:
    command: Command | CommandFn
    kind: Literal["once", "state"] = "once"
    reveal: Reveal | None = None

    def resolve(self, obs: Observation) -> Command | None:
        return self.command(obs) if callable(self.command) else self.command


@dataclass
class Interrupt:
    when: Callable[[Observation], bool]
    command: Command


@dataclass
class Plan:
    family: str
    steps: list[PlanStep] = field(default_factory=list)
    interrupts: list[Interrupt] = field(default_factory=list)

    @property
    def supported(self) -> bool:
        return self.family != "unsupported"


class UnsupportedUtterance(ValueError):
    pass


def submit_step() -> PlanStep:
    return PlanStep(Command("submit"))
