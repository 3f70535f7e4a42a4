"""The demo's deterministic answerer: it reads the task instance's parameters, not a model.

Both arms get answers of this kind (OdoBot's option/value prompts here, the baseline's next
action from the scripted demonstrator), so the comparison is about what each arm has to send
a model (tokens) and whether the graph gets it to the side effect, not about model quality.
"""

from __future__ import annotations

import re
from typing import Any

_PREFIX = re.compile(r"^(f-|editor-)")
_SKIP = {"username", "password"}


def _norm(s: str) -> str:
    return " ".join(str(s).split()).lower()


class OracleAnswerer:
    name = "oracle (task parameters)"

    def __init__(self, params: dict[str, str]) -> None:
        self.params = params

    def _field(self, element: dict[str, Any]) -> str | None:
        attrs = element.get("attrs", {})
        for key in (attrs.get("name", ""), _PREFIX.sub("", attrs.get("id", ""))):
            if key and key in self.params:
                return key
        return None

    def answer(self, kind: str, task: str, element: dict[str, Any], options: list[str]) -> str:
        if kind == "value":
            key = self._field(element)
            return self.params[key] if key else ""
        if kind == "check":
            key = self._field(element)
            return "yes" if key and self.params[key] == "yes" else "no"
        wanted = {_norm(v) for k, v in self.params.items() if k not in _SKIP}
        for i, opt in enumerate(options):
            if _norm(opt) in wanted:
                return str(i)
        shown = _norm(element.get("shown", ""))
        for i, opt in enumerate(options):
            if shown and _norm(opt) == shown:
                return str(i)
        return "none"
