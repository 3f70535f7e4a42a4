"""The application graph model: OdoBot Section III-B (three passes, fixed/free params, instances).

Pass 1 maps every non-DOM-effect event to the vertex of its fixed parameters (Table II).
Pass 2 places DOM effects by their neighbours: after a location event they join that
location's effect vertex, otherwise the (predecessor, successor) pair names the vertex.
Pass 3 adds the temporal edges. Each vertex keeps `instances` (event ids "traj#index") and the
free-parameter values seen, so a new task can reuse the vertex with its own values.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import networkx as nx

from odobot.events import FREE_PARAMS, Trajectory, TrajEvent


def _vid(key: tuple[str, ...]) -> str:
    # Stable ids (the paper draws random ones): the same demonstrations give the same graph.
    return "v" + hashlib.blake2b("\x1f".join(key).encode(), digest_size=5).hexdigest()


def _fixed(ev: TrajEvent) -> dict[str, Any]:
    if ev.kind == "click":
        return {"base_path": ev.base_path, "xpath": ev.xpath, "text": ev.text}
    if ev.kind == "api":
        return {"method": ev.method, "path": ev.base_path}
    if ev.kind == "location":
        return {"path": ev.base_path}
    if ev.kind == "radio":
        group = ev.element.group if ev.element else []
        return {"base_path": ev.base_path, "xpaths": group or [ev.xpath]}
    return {"base_path": ev.base_path, "xpath": ev.xpath}


def _add_instance(g: nx.DiGraph, vid: str, ev: TrajEvent) -> None:
    data = g.nodes[vid]
    data["instances"].append(ev.id)
    for name in FREE_PARAMS[ev.kind]:
        val = getattr(ev, name)
        if val not in (None, "", []):
            data["free"].setdefault(name, []).append(val)


def _new_vertex(g: nx.DiGraph, vid: str, ev: TrajEvent, fixed: dict[str, Any]) -> None:
    el = ev.element
    g.add_node(
        vid,
        kind=ev.kind,
        fixed=fixed,
        free={},
        instances=[],
        text=ev.text,
        label=(el.text if el else ev.text),
        html=(el.html if el else ""),
        attrs=(el.attrs if el else {}),
        annotation="",
        dynamic=None,
    )


def build_graph(trajectories: Iterable[Trajectory]) -> nx.DiGraph:
    trajs = list(trajectories)
    g = nx.DiGraph()
    ev_vertex: dict[str, str] = {}
    # Pass 1: every event but DOM effects, by fixed parameters.
    for tr in trajs:
        for ev in tr.events:
            key = ev.fixed_key()
            if key is None:
                continue
            vid = _vid(key)
            if vid not in g:
                _new_vertex(g, vid, ev, _fixed(ev))
            _add_instance(g, vid, ev)
            ev_vertex[ev.id] = vid
    # Pass 2: DOM effects, named by the vertices around them (all defined after pass 1).
    placed = set(ev_vertex)
    for tr in trajs:
        evs = tr.events
        for i, ev in enumerate(evs):
            if ev.kind != "dom_effect":
                continue
            # Neighbours are the nearest non-DOM-effect events (pass 1 gave them vertices).
            pred = next((ev_vertex[e.id] for e in reversed(evs[:i]) if e.id in placed), "^")
            if pred != "^" and g.nodes[pred]["kind"] == "location":
                key: tuple[str, ...] = ("dom_effect", pred)
            else:
                succ = next((ev_vertex[e.id] for e in evs[i + 1 :] if e.id in placed), "$")
                key = ("dom_effect", pred, succ)
            vid = _vid(key)
            if vid not in g:
                _new_vertex(g, vid, ev, {"after": pred, "before": key[2] if len(key) > 2 else ""})
            _add_instance(g, vid, ev)
            ev_vertex[ev.id] = vid
    # Pass 3: temporal edges (repeats of one vertex in a row are one visit).
    for tr in trajs:
        seq = [ev_vertex[e.id] for e in tr.events if e.id in ev_vertex]
        for a, b in itertools.pairwise(seq):
            if a != b:
                g.add_edge(a, b)
    g.graph["event_vertex"] = ev_vertex
    g.graph["trajectories"] = {tr.id: [e.id for e in tr.events] for tr in trajs}
    g.graph["descriptions"] = {tr.id: tr.description for tr in trajs}
    return g


def vertex_of(g: nx.DiGraph, ev: TrajEvent) -> str | None:
    """The vertex a live event maps to (same fixed parameters), or None."""
    key = ev.fixed_key()
    if key is None:
        return None
    vid = _vid(key)
    return vid if vid in g else None


def location_vertex(g: nx.DiGraph, path: str) -> str | None:
    vid = _vid(("location", path))
    return vid if vid in g else None


def save_graph(g: nx.DiGraph, path: Path) -> None:
    data = nx.node_link_data(g, edges="links")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def load_graph(path: Path) -> nx.DiGraph:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not a readable model file: {e}") from e
    for field in ("nodes", "links", "graph"):
        if field not in data:
            raise ValueError(f"{path}: field '{field}' missing (not an OdoBot model)")
    return nx.node_link_graph(data, edges="links", directed=True)
