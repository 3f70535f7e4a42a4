"""Executor observation: WebRider Appendix H, Table 42 (executor) and Table 60 (observation)."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, ConfigDict, Field, model_validator

from contracts.actions import MAX_LABEL
from contracts.guard_labels import AccessSignal


class BBox(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    x: float
    y: float
    width: float
    height: float


class ElementLabel(BaseModel):
    """One visible interactive element with the integer drawn on the screenshot."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    label: int = Field(ge=0, le=MAX_LABEL)
    role: str
    tag: str = ""
    text: str = ""
    bbox: BBox
    input_type: str | None = None
    checked: bool | None = None
    value: str | None = None


class Observation(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    url: str
    title: str = ""
    status: int | None = Field(default=None, description="HTTP status of the main document.")
    labels: list[ElementLabel] = Field(default_factory=list)
    page_text: str = Field(default="", description="Bounded excerpt of the visible text.")
    screenshot: str | None = Field(
        default=None, description="Screenshot PNG path, relative to the trace directory."
    )
    state_hash: str = ""
    access_signal: AccessSignal | None = None
    error: str | None = None

    @model_validator(mode="after")
    def _labels_unique(self) -> Observation:
        seen: set[int] = set()
        for el in self.labels:
            if el.label in seen:
                raise ValueError(f"label {el.label} appears twice: a target must name one element")
            seen.add(el.label)
        return self

    def label(self, n: int) -> ElementLabel | None:
        for el in self.labels:
            if el.label == n:
                return el
        return None

    def compute_state_hash(self) -> str:
        """Hash of what the controller can see, for repeated-state detection.

        Bounding boxes are left out on purpose: a re-render that moves pixels but shows
        the same elements and text is the same state for loop detection.
        """
        h = hashlib.blake2b(digest_size=12)
        h.update(self.url.encode())
        h.update(b"\0")
        h.update(self.page_text.encode())
        for el in self.labels:
            h.update(f"\0{el.role}|{el.text}|{el.checked}|{el.value}".encode())
        return h.hexdigest()

    def with_state_hash(self) -> Observation:
        return self.model_copy(update={"state_hash": self.compute_state_hash()})
