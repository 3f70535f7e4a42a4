"""One seed -> every contract site's data, base tasks and gold (WebRider Appendix B, Table 11).

Gold is computed from the generated data, never written by hand: the valid selections are the
items whose shown facts satisfy every hard constraint (then the best by the task's criterion),
and an evidence answer's expected value is what the named item's page shows.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any

from envs.sites import booking, directory, docs, shop  # noqa: F401
from envs.sites.booking.generate import build as build_booking
from envs.sites.directory.generate import build as build_directory
from envs.sites.docs.generate import build as build_docs
from envs.sites.facts import fact_of, page_wall, satisfies
from envs.sites.model import BaseTask, Gold, Item, SiteData, World, number_in
from envs.sites.shop.generate import build as build_shop

DEFAULT_SEED = 20260614
RECIPES: dict[
    str, Callable[[random.Random], tuple[SiteData, list[tuple[BaseTask, dict[str, Any]]]]]
] = {
    "shop": build_shop,
    "directory": build_directory,
    "booking": build_booking,
    "docs": build_docs,
}


def valid_items(site: SiteData, task: BaseTask) -> list[Item]:
    """Items satisfying every item_attr constraint, then the best by any item_best criterion."""
    attrs = [
        h.inspect for h in task.hard_constraints if h.inspect and h.inspect.kind == "item_attr"
    ]
    out = [i for i in site.items if all(satisfies(site, i, a) for a in attrs)]  # type: ignore[arg-type]
    # An item whose material blocker stays open cannot pass the blocker gate: not a valid pick.
    out = [
        i
        for i in out
        if all(fact_of(site, i, b.page, b.fact) not in b.open_values for b in task.blockers)
    ]
    for h in task.hard_constraints:
        ins = h.inspect
        if ins is None or ins.kind != "item_best" or not out:
            continue
        assert ins.field is not None
        scores = {i.id: number_in(fact_of(site, i, ins.page, ins.field) or "") for i in out}
        known = [s for s in scores.values() if s is not None]
        target = max(known) if ins.op == "argmax" else min(known)
        out = [i for i in out if scores[i.id] == target]
    return out


def _routes(site: SiteData, task: BaseTask, valid: list[Item]) -> list[str]:
    routes = {"search"}
    same_cat = [i for i in site.items if i.category == (valid[0].category if valid else "")]
    if len(valid) > 1 or task.mode == "compare":
        routes.add("ranking")
    if site.related_links:
        routes.add("verification")
    if task.blockers:
        routes.add("asking")
    if len(same_cat) > 1:
        routes.add("stopping")
    return sorted(routes)


def compute_gold(site: SiteData, task: BaseTask, extra: dict[str, Any]) -> Gold:
    expected: dict[str, str] = {}
    subject = extra.get("subject")
    if subject:
        item = site.item(subject)
        assert item is not None
        valid = [item]
        expected["selection"] = item.id
        if "verdict" in task.answer.fields:
            ok = all(satisfies(site, item, c.inspect) for c in task.claims if c.inspect)
            expected["verdict"] = "yes" if ok else "no"
        if task.answer.value_fact:
            page = task.evidence[0].page or "item"
            expected["value"] = fact_of(site, item, page, task.answer.value_fact) or ""
    else:
        valid = valid_items(site, task)
        if task.answer.form == "evidence_answer" and len(valid) == 1:
            expected["selection"] = valid[0].id
            if task.answer.value_fact:
                expected["value"] = valid[0].facts.get(task.answer.value_fact, "")
    pages = {o.page or "item" for o in task.evidence} | {"item"}
    blocked = [i.id for i in valid if any(page_wall(site, i, p) for p in pages)]
    return Gold(
        base_task_id=task.id,
        valid=[i.id for i in valid],
        expected=expected,
        routes=_routes(site, task, valid),  # type: ignore[arg-type]
        access_blocked_items=blocked,
    )


@cache
def generate_world(seed: int = DEFAULT_SEED) -> World:
    """Deterministic: the same seed gives byte-identical data, tasks and gold."""
    sites: dict[str, SiteData] = {}
    tasks: list[BaseTask] = []
    gold: dict[str, Gold] = {}
    for name, build in RECIPES.items():
        data, built = build(random.Random(f"{seed}:{name}"))
        sites[name] = data
        for task, extra in built:
            tasks.append(task)
            gold[task.id] = compute_gold(data, task, extra)
    return World(seed=seed, sites=sites, tasks=tasks, gold=gold)
