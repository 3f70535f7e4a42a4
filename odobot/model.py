"""Model construction end to end: OdoBot Section III (graph build, then annotation).

Demonstrations in, annotated graph out, plus what a served describer would have been sent
(`DescriptionCost`, the construction cost the amortization point divides).
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx
from pydantic import BaseModel, ConfigDict

from odobot.annotate import MinerCache, annotate_descriptions, annotate_dynamic
from odobot.describe import DescriptionCost
from odobot.events import Trajectory
from odobot.graph import build_graph
from odobot.vocabulary import annotate_vocabularies


class BuildStats(BaseModel):
    model_config = ConfigDict(extra="forbid")
    trajectories: int
    events: int
    vertices: int
    edges: int
    dynamic_vertices: int
    mined_page_structures: int
    description_calls: int


def build_model(
    trajectories: Iterable[Trajectory],
) -> tuple[nx.DiGraph, DescriptionCost, BuildStats]:
    trajs = {t.id: t for t in trajectories}
    g = build_graph(trajs.values())
    miner = MinerCache()
    dynamic = annotate_dynamic(g, trajs, miner)
    cost = DescriptionCost()
    annotate_descriptions(g, trajs, cost)
    annotate_vocabularies(g, trajs)
    stats = BuildStats(
        trajectories=len(trajs),
        events=sum(len(t.events) for t in trajs.values()),
        vertices=g.number_of_nodes(),
        edges=g.number_of_edges(),
        dynamic_vertices=dynamic,
        mined_page_structures=miner.runs,
        description_calls=len(cost.prompts),
    )
    g.graph["stats"] = stats.model_dump()
    return g, cost, stats
