"""Trajectory events and their fixed parameters: OdoBot Section III-A/B and Table II.

User interaction events (click, data entry, rich text, select, checkbox, radio) carry the
base path, the element's XPath and a snapshot reference; application events are non-GET API
calls, location changes and DOM effects. `fixed_key` is Table II's right-hand side: two events
with the same key are equivalent and map to one graph vertex; everything else is free.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EventKind = Literal[
    "click", "input", "richtext", "select", "checkbox", "radio", "api", "location", "dom_effect"
]
USER_KINDS = frozenset({"click", "input", "richtext", "select", "checkbox", "radio"})
APP_KINDS = frozenset({"api", "location", "dom_effect"})
# Free parameters: what a new task instance may change without changing the vertex.
FREE_PARAMS: dict[str, tuple[str, ...]] = {
    "click": (),
    "input": ("value",),
    "richtext": ("value",),
    "select": ("value",),
    "checkbox": ("value",),
    "radio": ("value",),
    "api": ("url",),
    "location": ("url",),
    "dom_effect": ("added", "removed", "shown", "hidden"),
}


class ElementInfo(BaseModel):
    """What the capture script read from the event's element (for descriptions and prompts)."""

    model_config = ConfigDict(extra="forbid")
    tag: str = ""
    text: str = ""
    html: str = ""  # outer HTML, attribute-filtered and truncated
    attrs: dict[str, str] = Field(default_factory=dict)
    options: list[str] = Field(default_factory=list)  # select options / radio group values
    group: list[str] = Field(default_factory=list)  # radio: XPaths of every option in the group


class TrajEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str  # "<trajectory id>#<index>" (the paper's instance ids)
    kind: EventKind
    t: float
    base_path: str = ""  # user events: page's normalized path; app events: normalized URL path
    url: str = ""
    xpath: str = ""
    text: str = ""
    element: ElementInfo | None = None
    value: str | None = None
    method: str = ""
    snapshot: str = ""  # key into Trajectory.snapshots (filtered DOM at capture time)
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    shown: list[str] = Field(default_factory=list)
    hidden: list[str] = Field(default_factory=list)

    @property
    def index(self) -> int:
        return int(self.id.rsplit("#", 1)[1])

    def fixed_key(self) -> tuple[str, ...] | None:
        """Table II fixed parameters; None for DOM effects (placed by their neighbours)."""
        k = self.kind
        if k == "click":
            return (k, self.base_path, self.xpath, self.text)
        if k == "radio":
            group = self.element.group if self.element and self.element.group else [self.xpath]
            return (k, self.base_path, *sorted(group))
        if k in ("input", "richtext", "select", "checkbox"):
            return (k, self.base_path, self.xpath)
        if k == "api":
            return (k, self.method, self.base_path)
        if k == "location":
            return (k, self.base_path)
        return None


class Trajectory(BaseModel):
    """A demonstration: its events in time order and the filtered DOM snapshots they cite."""

    model_config = ConfigDict(extra="forbid")
    id: str
    task_id: str = ""
    events: list[TrajEvent]
    snapshots: dict[str, str] = Field(default_factory=dict)
    description: str = ""
    ok: bool | None = None  # whether the demonstration's side effect was checked in the app

    def event(self, event_id: str) -> TrajEvent:
        return self.events[int(event_id.rsplit("#", 1)[1])]


def event_of(trajs: dict[str, Trajectory], event_id: str) -> TrajEvent:
    """The event an instance id (`<trajectory id>#<index>`) names, among `trajs`."""
    return trajs[event_id.rsplit("#", 1)[0]].event(event_id)
