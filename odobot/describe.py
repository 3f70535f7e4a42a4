"""Event and trajectory descriptions: OdoBot Section III-A (semantic descriptions), template text.

The paper asks an LLM to describe every event, then to summarise a trajectory in the
imperative without task-specific inputs. Here the descriptions are template text (no model
runs), and `DescriptionCost` records the prompts a served describer would have been sent and
the texts it would have returned, so the model's construction cost is counted in tokens.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field

from odobot.events import Trajectory, TrajEvent

DESCRIBE_EVENT_PROMPT = (
    "Describe this web-application event in one sentence: what the user did or what the "
    "application did, naming the element by its text. Event:\n"
)
SUMMARISE_PROMPT = (
    "Summarise these event descriptions as one imperative task description. Describe the "
    "application feature used; leave out task-specific inputs (names, texts, dates).\n"
)


class DescriptionCost(BaseModel):
    """Prompts and completions a served describer would have seen (counted, not sent)."""

    model_config = ConfigDict(extra="forbid")
    prompts: list[str] = Field(default_factory=list)
    completions: list[str] = Field(default_factory=list)

    def add(self, prompt: str, completion: str) -> None:
        self.prompts.append(prompt)
        self.completions.append(completion)


def _what(ev: TrajEvent) -> str:
    # The executor's label text names a field by its <label>; a select's own text would be
    # all of its options.
    el = ev.element
    return (ev.text or (el.text if el else "")).strip() or "field"


def describe_event(ev: TrajEvent) -> str:
    k = ev.kind
    if k == "click":
        return f'Click "{ev.text}" on {ev.base_path}.'
    if k == "input":
        return f"Enter the {_what(ev).lower()} in the text field on {ev.base_path}."
    if k == "richtext":
        return f"Write the {_what(ev).lower()} in the rich-text editor."
    if k == "select":
        return f"Choose the {_what(ev).lower()} from the drop-down list."
    if k == "checkbox":
        return f'Tick the checkbox "{_what(ev)}".'
    if k == "radio":
        return "Pick one of the radio-button answers."
    if k == "api":
        return f"The application sends {ev.method} {ev.base_path} ({_api_words(ev)})."
    if k == "location":
        return f"The application navigates to {ev.base_path}."
    return f"The page updates ({len(ev.added)} added, {len(ev.removed)} removed)."


def _api_words(ev: TrajEvent) -> str:
    """What a non-GET call does, read off its REST path the way a describer would."""
    segs = [s for s in ev.base_path.split("/") if s and s != "*" and s not in ("api", "v1")]
    if ev.base_path.rstrip("/").endswith("login"):
        return "log in"
    verb = {"POST": "create", "PUT": "update", "DELETE": "delete", "PATCH": "update"}
    nouns = [s for s in segs if s not in ("courses", "account")] or segs
    if ev.method == "POST" and ev.base_path.endswith("*") is False and len(nouns) >= 2:
        return f"{nouns[-1].replace('_', ' ')} on a {nouns[-2].rstrip('s')}"
    if len(nouns) >= 2:
        what, owner = nouns[-1].replace("_", " "), nouns[-2].rstrip("s")
        return f"{verb.get(ev.method, ev.method.lower())} the {what} of a {owner}"
    noun = nouns[-1].replace("_", " ").rstrip("s") if nouns else "item"
    return f"{verb.get(ev.method, ev.method.lower())} a {noun}"


def event_prompt(ev: TrajEvent) -> str:
    """The describer's input: the event's record and its attribute-filtered element."""
    record = {
        "type": ev.kind,
        "base_path": ev.base_path,
        "xpath": ev.xpath,
        "text": ev.text,
        "method": ev.method,
        "element": ev.element.html if ev.element else "",
        "added": ev.added[:10],
    }
    return DESCRIBE_EVENT_PROMPT + json.dumps({k: v for k, v in record.items() if v})


def describe_trajectory(
    tr: Trajectory, dynamic: frozenset[str] = frozenset(), cost: DescriptionCost | None = None
) -> str:
    """Imperative summary built from the user actions and the side-effect call, no inputs.

    Clicks in `dynamic` (event ids of clicks on mined card entries: a course card, an item
    link) are task-specific choices, so their text stays out of the description.
    """
    parts: list[str] = []
    descs: list[str] = []
    for ev in tr.events:
        d = describe_event(ev)
        descs.append(d)
        if cost is not None:
            cost.add(event_prompt(ev), d)
    steps: list[str] = []
    for ev in tr.events:
        if ev.kind == "click":
            steps.append("choose an entry" if ev.id in dynamic else f'click "{ev.text}"')
        elif ev.kind in ("input", "richtext", "select"):
            steps.append(f"enter the {_what(ev).lower()}")
        elif ev.kind == "checkbox":
            steps.append(f'tick "{_what(ev)}"')
        elif ev.kind == "radio":
            steps.append("pick an answer")
    calls = [e for e in tr.events if e.kind == "api" and not e.base_path.endswith("login")]
    if calls:
        last = calls[-1]
        parts.append(f"{_api_words(last).capitalize()}.")
    parts.append("Log in, then " + ", ".join(s for s in steps[3:] if s) + ".")
    if calls:
        parts.append(f"The application sends {calls[-1].method} {calls[-1].base_path}.")
    text = " ".join(parts)
    if cost is not None:
        cost.add(SUMMARISE_PROMPT + "\n".join(descs), text)
    return text
