"""Reading a fact of an item on a page kind, and checking a constraint against a shown value.

One definition serves the gold generator and the gates (WebRider Table 16, Hard-C): a constraint
holds when the value the site shows satisfies it, never when the agent merely claims it.
"""

from __future__ import annotations

from contracts.intent import Inspect
from envs.sites.model import Item, SiteData, number_in


def fact_of(site: SiteData, item: Item, page: str, label: str) -> str | None:
    """The value `item` shows for `label` on its `page` kind (item page or a related page)."""
    if page == "item":
        return item.facts.get(label)
    pid = item.related.get(page)
    rel = site.page(pid) if pid else None
    return rel.facts.get(label) if rel else None


def holds(inspect: Inspect, shown: str | None) -> bool:
    """Does a shown value satisfy an item_attr check (eq, contains, max, min)?"""
    if shown is None:
        return False
    op, want = inspect.op, inspect.value
    if op == "eq":
        return shown.strip().casefold() == str(want).strip().casefold()
    if op == "contains":
        return str(want).casefold() in shown.casefold()
    n = number_in(shown)
    if n is None or want is None:
        return False
    if op == "max":
        return n <= float(want)
    if op == "min":
        return n >= float(want)
    return False


def satisfies(site: SiteData, item: Item, inspect: Inspect) -> bool:
    assert inspect.field is not None
    return holds(inspect, fact_of(site, item, inspect.page, inspect.field))


def page_wall(site: SiteData, item: Item, page: str) -> str | None:
    """The access wall in front of `item`'s `page` kind, if any."""
    if page == "item":
        return item.wall
    pid = item.related.get(page)
    rel = site.page(pid) if pid else None
    return rel.wall if rel else None
