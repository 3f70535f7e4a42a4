"""Graph annotation: OdoBot Section III-C (dynamicXpaths for free-parameter clicks, descriptions).

A click vertex whose element lies inside a mined container's repeated child gets a
dynamicXpath (prefix, tag, suffix): at execution time the element is chosen among the live
container's children. User-event vertices get an annotation (their events' description), and
every trajectory its imperative description, which the target-vertex search embeds.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

import networkx as nx

from odobot.describe import (
    SUMMARISE_PROMPT,
    DescriptionCost,
    describe_event,
    describe_trajectory,
)
from odobot.events import USER_KINDS, Trajectory, event_of
from odobot.mining import Container, dynamic_xpath, mine_containers

_TAGS = re.compile(r"<([a-zA-Z][a-zA-Z0-9]*)")


class MinerCache:
    """Mining results per page structure: snapshots that differ only in text share one run."""

    def __init__(self) -> None:
        self._cache: dict[str, list[Container]] = {}
        self.runs = 0

    def containers(self, html: str) -> list[Container]:
        key = hashlib.blake2b(" ".join(_TAGS.findall(html)).encode(), digest_size=12).hexdigest()
        if key not in self._cache:
            self.runs += 1
            self._cache[key] = mine_containers(html)
        return self._cache[key]


def annotate_dynamic(g: nx.DiGraph, trajs: dict[str, Trajectory], miner: MinerCache) -> int:
    """Mark click vertices with a dynamicXpath; returns how many were marked."""
    marked = 0
    for _vid, data in g.nodes(data=True):
        if data["kind"] != "click":
            continue
        for inst in data["instances"]:
            tr = trajs[inst.rsplit("#", 1)[0]]
            ev = tr.event(inst)
            html = tr.snapshots.get(ev.snapshot, "")
            dx = dynamic_xpath(ev.xpath, miner.containers(html)) if html else None
            if dx is not None:
                data["dynamic"] = {"prefix": dx[0], "tag": dx[1], "suffix": dx[2]}
                marked += 1
                break
    return marked


def dynamic_clicks(g: nx.DiGraph, tag: str | None = None) -> frozenset[str]:
    """Instance ids of clicks on mined, repeated entries (only entries that are a `tag`)."""
    return frozenset(
        inst
        for _, d in g.nodes(data=True)
        if d["kind"] == "click" and d.get("dynamic") and tag in (None, d["dynamic"]["tag"])
        for inst in d["instances"]
    )


def annotate_descriptions(
    g: nx.DiGraph, trajs: dict[str, Trajectory], cost: DescriptionCost
) -> None:
    """Trajectory descriptions (for target search) and vertex annotations (for paths)."""
    # Entries of card containers (div children: course cards, item cards) are the task's
    # data, so their text stays out; menu entries (li, a, button children) name features.
    dynamic = dynamic_clicks(g, "div")
    for tr in trajs.values():
        tr.description = describe_trajectory(tr, dynamic, cost)
    g.graph["descriptions"] = {tid: tr.description for tid, tr in trajs.items()}
    for _, data in g.nodes(data=True):
        descs = [describe_event(event_of(trajs, i)) for i in data["instances"]]
        common = Counter(descs).most_common(1)[0][0] if descs else ""
        if data["kind"] in USER_KINDS and data.get("dynamic"):
            common = f"Choose the task's entry among the repeated elements ({common})"
        data["annotation"] = common
        if data["kind"] in USER_KINDS and len(set(descs)) > 1:
            # Only a vertex with differing event descriptions needs a summarising call.
            cost.add(SUMMARISE_PROMPT + "\n".join(sorted(set(descs))), common)
