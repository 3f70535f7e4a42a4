"""Helpers the site generators share: an item catalog, money, constraint and obligation builders.

WebRider Appendix B, Table 9: hard constraints are written with how they are inspected, evidence
obligations with the fact and the page that shows it, so the task audit can check both.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from contracts.intent import (
    AnswerSchema,
    BlockerCheck,
    EvidenceObligation,
    HardConstraint,
    Inspect,
)
from envs.sites.model import Item, RelatedPage, WallKind

RECOMMENDATION = ("selection", "support", "caveat", "alternatives")


def money(v: float) -> str:
    return f"${v:,.2f}"


@dataclass
class Catalog:
    """Accumulates one site's items and related pages with sequential ids (prefix + number)."""

    prefix: str
    rng: random.Random
    items: list[Item] = field(default_factory=list)
    pages: list[RelatedPage] = field(default_factory=list)
    _titles: set[str] = field(default_factory=set)

    def add(
        self,
        title: str,
        category: str,
        facts: dict[str, str],
        snippet: list[str],
        related: dict[str, str] | None = None,
        wall: WallKind | None = None,
    ) -> Item:
        if title in self._titles:
            raise ValueError(f"duplicate item title {title!r}")
        self._titles.add(title)
        item_id = f"{self.prefix}-{len(self.items) + 1:04d}"
        item = Item(
            id=item_id,
            title=title,
            category=category,
            facts={"Item no.": item_id, **facts},
            snippet=snippet,
            related=dict(related or {}),
            wall=wall,
        )
        self.items.append(item)
        return item

    def page(
        self, kind: str, title: str, facts: dict[str, str], wall: WallKind | None = None
    ) -> RelatedPage:
        page = RelatedPage(
            id=f"{kind}-{len(self.pages) + 1:03d}", kind=kind, title=title, facts=facts, wall=wall
        )
        self.pages.append(page)
        return page

    def replace(self, item: Item, **facts: Any) -> Item:
        """A copy of `item`'s facts with some changed (for decoys); not yet added."""
        return item.model_copy(update={"facts": {**item.facts, **facts}})

    def unique_title(self, make: Any) -> str:
        for _ in range(1000):
            t = make()
            if t not in self._titles:
                return t
        raise RuntimeError("could not draw a unique title")


def attr(fact: str, op: str, value: str | float, text: str, page: str = "item") -> HardConstraint:
    return HardConstraint(
        id=f"h_{fact.lower().replace(' ', '_').replace('.', '')}",
        text=text,
        inspect=Inspect(kind="item_attr", field=fact, op=op, value=value, page=page),  # type: ignore[arg-type]
    )


def best(fact: str, op: str, text: str, page: str = "item") -> HardConstraint:
    return HardConstraint(
        id=f"h_best_{fact.lower().replace(' ', '_')}",
        text=text,
        inspect=Inspect(kind="item_best", field=fact, op=op, page=page),  # type: ignore[arg-type]
    )


def gold_answer(fieldname: str, text: str) -> HardConstraint:
    return HardConstraint(
        id=f"h_answer_{fieldname}",
        text=text,
        inspect=Inspect(kind="answer_matches_gold", field=fieldname),
    )


def need(
    fact: str, page: str = "item", via: str | None = None, text: str | None = None
) -> EvidenceObligation:
    where = "its page" if page == "item" else f"the {page} page"
    return EvidenceObligation(
        id=f"e_{page}_{fact.lower().replace(' ', '_').replace('.', '')}",
        text=text or f"{fact} of the chosen item, observed on {where}",
        fact=fact,
        page=page,
        via=via,
    )


def blocker(
    bid: str,
    text: str,
    fact: str,
    open_values: list[str],
    page: str = "item",
    via: str | None = None,
) -> BlockerCheck:
    return BlockerCheck(id=bid, text=text, fact=fact, page=page, via=via, open_values=open_values)


def recommendation(min_alternatives: int = 0) -> AnswerSchema:
    return AnswerSchema(
        form="recommendation", fields=list(RECOMMENDATION), min_alternatives=min_alternatives
    )


def evidence_answer(*fields: str, value_fact: str | None = None) -> AnswerSchema:
    return AnswerSchema(
        form="evidence_answer", fields=["selection", *fields, "support"], value_fact=value_fact
    )
