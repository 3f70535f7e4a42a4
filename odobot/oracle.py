"""The upper bound: a deterministic answerer that reads the task instance's parameters.

It answers OdoBot's prompts from what the scripted demonstrator knows (the instance's
parameters), never from a model, so a run with it measures the machinery (graph, paths, replay,
re-location) and what each prompt costs; the trained student (odobot/student.py) is the result.
Its completions have the student's form (a JSON string), so they are counted the same way.
"""

from __future__ import annotations

import re

from odobot.prompts import Prompt, completion_for

_PREFIX = re.compile(r"^(f-|editor-)")
_SKIP = {"password"}  # typed from the secret store (odobot/act.py), never answered


def _norm(s: str) -> str:
    return " ".join(str(s).split()).lower()


class OracleAnswerer:
    name = "oracle (task parameters)"

    def __init__(self, params: dict[str, str], trajectory: str = "") -> None:
        self.params = params
        self.trajectory = trajectory  # the demonstration of the instance's own template

    def _field(self, prompt: Prompt) -> str | None:
        attrs = prompt.element.get("attrs", {})
        for key in (attrs.get("name", ""), _PREFIX.sub("", attrs.get("id", ""))):
            if key and key in self.params and key not in _SKIP:
                return key
        return None

    def answer(self, prompt: Prompt) -> str:
        return completion_for(self._answer(prompt))

    def _answer(self, prompt: Prompt) -> str:
        if prompt.kind == "trajectory":
            ids = prompt.element.get("trajectories", [])
            return prompt.choices[ids.index(self.trajectory)] if self.trajectory in ids else "none"
        if prompt.kind == "value":
            key = self._field(prompt)
            return self.params[key] if key else ""
        if prompt.kind == "check":
            key = self._field(prompt)
            return "yes" if key and self.params[key] == "yes" else "no"
        wanted = {_norm(v) for k, v in self.params.items() if k not in _SKIP}
        for name in prompt.choices:
            if _norm(name) in wanted:
                return name
        shown = _norm(prompt.element.get("shown", ""))
        for name in prompt.choices:
            if shown and _norm(name) == shown:
                return name
        return "none"
