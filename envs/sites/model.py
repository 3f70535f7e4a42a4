"""Seeded data of the contract sites: items, related pages, base tasks and their gold.

WebRider Appendix B (Table 9): a base task fixes the objective, hard constraints, evidence
obligations, blockers and answer form; its gold (valid selections, expected answer values,
which route decisions are open) is kept apart from anything the agent sees.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from contracts.intent import (
    AnswerSchema,
    BlockerCheck,
    EvidenceObligation,
    HardConstraint,
)
from contracts.persona import RouteDecision

WallKind = Literal["captcha", "login", "forbidden", "rate_limited"]
Mode = Literal["plan", "compare", "verify", "lookup", "select", "troubleshoot"]
MODES: tuple[str, ...] = ("plan", "compare", "verify", "lookup", "select", "troubleshoot")
ITEM_ID = re.compile(r"^[A-Z]{2}-\d{4}$")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")

_F = ConfigDict(extra="forbid")


def number_in(text: str) -> float | None:
    """First number shown in a displayed value ('$1,249.00' -> 1249.0, '20:00' -> 20.0)."""
    m = _NUMBER.search(text or "")
    return float(m.group(0).replace(",", "")) if m else None


class Item(BaseModel):
    """One thing a site lists (a product, a place, a stay, an article) with its shown facts."""

    model_config = _F
    id: str
    title: str = Field(min_length=1)
    category: str = Field(min_length=1)
    facts: dict[str, str] = Field(description="Label -> displayed value, in page order.")
    snippet: list[str] = Field(default_factory=list, description="Fact labels shown in listings.")
    related: dict[str, str] = Field(
        default_factory=dict, description="Related page kind -> page id."
    )
    wall: WallKind | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not ITEM_ID.match(v):
            raise ValueError(f"item id {v!r} must look like AB-0123")
        return v


class RelatedPage(BaseModel):
    """A page reached from an item (a seller, a price breakdown, release notes, a map entry)."""

    model_config = _F
    id: str = Field(min_length=1)
    kind: str = Field(min_length=1)
    title: str = Field(min_length=1)
    facts: dict[str, str]
    wall: WallKind | None = None


class SiteData(BaseModel):
    model_config = _F
    name: str
    title: str
    item_noun: str = "item"
    categories: list[str]
    related_links: dict[str, str] = Field(
        default_factory=dict, description="Related kind -> link text on the item page."
    )
    modal: bool = False
    items: list[Item]
    pages: list[RelatedPage] = Field(default_factory=list)

    @model_validator(mode="after")
    def _refs(self) -> SiteData:
        page_ids = {p.id for p in self.pages}
        seen: set[str] = set()
        for i, item in enumerate(self.items):
            if item.id in seen:
                raise ValueError(f"items[{i}].id: duplicate {item.id!r}")
            seen.add(item.id)
            if item.category not in self.categories:
                raise ValueError(f"items[{i}].category: unknown {item.category!r}")
            for kind, pid in item.related.items():
                if kind != "map" and pid not in page_ids:
                    raise ValueError(f"items[{i}].related.{kind}: unknown page {pid!r}")
        return self

    def item(self, item_id: str) -> Item | None:
        return next((i for i in self.items if i.id == item_id), None)

    def page(self, page_id: str) -> RelatedPage | None:
        return next((p for p in self.pages if p.id == page_id), None)


class BaseTask(BaseModel):
    """What every persona contract of this task shares (Table 9 minus the persona)."""

    model_config = _F
    id: str
    site: str
    mode: Mode
    request: str
    goal: str
    hard_constraints: list[HardConstraint]
    soft_preferences: list[str] = Field(default_factory=list)
    claims: list[HardConstraint] = Field(default_factory=list)
    blockers: list[BlockerCheck] = Field(default_factory=list)
    evidence: list[EvidenceObligation]
    answer: AnswerSchema
    geographic: bool = False
    location: str | None = None
    difficulty: int = Field(default=2, ge=1, le=4)


class Gold(BaseModel):
    """What scoring needs and the agent never sees."""

    model_config = _F
    base_task_id: str
    valid: list[str] = Field(description="Item ids that satisfy every hard constraint.")
    expected: dict[str, str] = Field(
        default_factory=dict, description="Answer field -> expected value (lookup, verify)."
    )
    routes: list[RouteDecision] = Field(default_factory=list)
    access_blocked_items: list[str] = Field(default_factory=list)


class World(BaseModel):
    """Every site's data, base tasks and gold, generated from one seed."""

    model_config = _F
    seed: int
    sites: dict[str, SiteData]
    tasks: list[BaseTask]
    gold: dict[str, Gold]

    @model_validator(mode="after")
    def _tasks(self) -> World:
        for i, t in enumerate(self.tasks):
            if t.site not in self.sites:
                raise ValueError(f"tasks[{i}].site: unknown site {t.site!r}")
            if t.id not in self.gold:
                raise ValueError(f"tasks[{i}].id: no gold for {t.id!r}")
        return self

    def task(self, task_id: str) -> BaseTask:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(f"unknown base task {task_id!r}")
