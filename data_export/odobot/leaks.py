"""The held-out guard: no held-out instance, nor any of its values, in a student's training data.

A held-out task's text must never occur; nor may any of its parameter values other than the
application's constants (a role, a time zone, a quiz answer: every world offers them). A bare
number (points, a score, minutes) occurs everywhere as ids and ports, so it counts only as an
answer: a training record whose answer is a held-out number leaks it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from envs.lms.tasks import TaskInstance, instance_values


def _leaves(completion: str) -> set[str]:
    """Every string an answer holds (a JSON string, an Action AST's texts, or plain text); a
    label number is no value."""
    try:
        value: Any = json.loads(completion)
    except json.JSONDecodeError:
        return {completion.strip()}
    out: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str):
            out.add(v.strip())
    return out


def leaks(records: Iterable[dict[str, Any]], heldout: list[TaskInstance]) -> list[str]:
    """One line per held-out text or value found in `records` (chat messages); [] is clean."""
    texts: list[str] = []
    answers: set[str] = set()
    for rec in records:
        for m in rec["messages"]:
            texts.append(m["content"])
            if m["role"] == "assistant":
                answers |= _leaves(m["content"])
    blob = "\n".join(texts)
    found = []
    for inst in heldout:
        if inst.text in blob:
            found.append(f"{inst.task_id}: its task text")
        for v in sorted(instance_values(inst)):
            hit = v in answers if v.isdigit() else v in blob
            if hit:
                found.append(f"{inst.task_id}: value {v!r}")
    return found
