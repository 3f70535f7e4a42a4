"""Trajectory events for the application model: OdoBot Section III-A (Table II event types)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

_Ev = ConfigDict(extra="forbid")


def base_path(url: str) -> str:
    """OdoBot's base path: the URL minus protocol, host and port (query kept off too)."""
    return urlsplit(url).path or "/"


class InteractionEvent(BaseModel):
    """A user interaction event: click, data entry, select, checkbox or radio."""

    model_config = _Ev
    kind: Literal["interaction"] = "interaction"
    t: float
    action: Literal["click", "type", "select", "checkbox", "radio"]
    url: str
    base_path: str
    label: int | None = None
    tag: str = ""
    role: str = ""
    text: str = ""
    xpath: str = ""
    value: str | None = None


class LocationEvent(BaseModel):
    """The main frame's URL changed (OdoBot "location event")."""

    model_config = _Ev
    kind: Literal["location"] = "location"
    t: float
    url: str
    base_path: str


class NetworkEvent(BaseModel):
    """A non-GET request: a material server-side change and so a possible task objective."""

    model_config = _Ev
    kind: Literal["network"] = "network"
    t: float
    method: str
    url: str
    base_path: str
    resource_type: str = ""
    post_data_bytes: int = 0


Event = Annotated[InteractionEvent | LocationEvent | NetworkEvent, Field(discriminator="kind")]


class EventLog:
    """Collects events from page listeners and the executor; `drain()` hands them to the runner.

    Playwright's sync API delivers events on the calling thread, but a lock keeps the log
    safe if a caller ever drains from another thread.
    """

    def __init__(self, page: Any | None = None) -> None:
        self._events: list[InteractionEvent | LocationEvent | NetworkEvent] = []
        self._lock = threading.Lock()
        self._page: Any = None
        # Set by the executor to its secret store's redaction: a URL (a GET form's query) or
        # a typed value is recorded with secrets replaced by their references.
        self.redact: Callable[[str], str] = lambda text: text
        if page is not None:
            self.attach(page)

    def attach(self, page: Any) -> None:
        self._page = page
        page.on("framenavigated", self._on_nav)
        page.on("request", self._on_request)

    def detach(self) -> None:
        if self._page is not None:
            self._page.remove_listener("framenavigated", self._on_nav)
            self._page.remove_listener("request", self._on_request)
            self._page = None

    def _add(self, ev: InteractionEvent | LocationEvent | NetworkEvent) -> None:
        with self._lock:
            self._events.append(ev)

    def _on_nav(self, frame: Any) -> None:
        if frame.parent_frame is not None:  # sub-frames are not location changes
            return
        url = self.redact(frame.url)
        self._add(LocationEvent(t=time.time(), url=url, base_path=base_path(url)))

    def _on_request(self, request: Any) -> None:
        if request.method == "GET":
            return
        body = request.post_data_buffer
        url = self.redact(request.url)
        self._add(
            NetworkEvent(
                t=time.time(),
                method=request.method,
                url=url,
                base_path=base_path(url),
                resource_type=request.resource_type,
                post_data_bytes=len(body) if body else 0,
            )
        )

    def record_interaction(self, **fields: Any) -> None:
        url = self.redact(fields.pop("url", self._page.url if self._page is not None else ""))
        for key in ("text", "value"):
            if fields.get(key):
                fields[key] = self.redact(fields[key])
        self._add(InteractionEvent(t=time.time(), url=url, base_path=base_path(url), **fields))

    def drain(self) -> list[InteractionEvent | LocationEvent | NetworkEvent]:
        with self._lock:
            out, self._events = self._events, []
        return out

    def __len__(self) -> int:
        return len(self._events)
