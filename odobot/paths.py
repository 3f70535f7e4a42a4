"""Path planning on the graph model: OdoBot Section IV (distance Eq. 1, beam search, overlap).

dist(vc, vt) = |avg index of vc's events - avg index of vt's events| over the trajectories that
hold events of both, infinite when none does. Beam search keeps the 3 best next vertices per
step and lets a path take at most 5 infinite-distance steps, which bridges trajectories that
never met. Among the paths found, the one sharing most vertices with the similar task's
trajectory wins (fewer composition errors); of paths equal on that share, the one covering more
of the similar trajectory (a path that skips its "Pin this discussion" tick covers less), then
the shorter. The paper has an LLM weigh path descriptions with the share; this is the
deterministic stand-in.
"""

from __future__ import annotations

import math
from collections import defaultdict
from statistics import fmean

import networkx as nx

BEAM = 3
MAX_INFINITE_STEPS = 5
MAX_PATH_LEN = 60


class Distances:
    """Eq. 1 over the graph's instances, with each vertex's events indexed per trajectory."""

    def __init__(self, g: nx.DiGraph) -> None:
        self.g = g
        self._idx: dict[str, dict[str, list[int]]] = {}
        for vid, data in g.nodes(data=True):
            per: dict[str, list[int]] = defaultdict(list)
            for inst in data["instances"]:
                tid, i = inst.rsplit("#", 1)
                per[tid].append(int(i))
            self._idx[vid] = dict(per)
        self._cache: dict[tuple[str, str], float] = {}

    def __call__(self, vc: str, vt: str) -> float:
        key = (vc, vt)
        if key not in self._cache:
            a, b = self._idx.get(vc, {}), self._idx.get(vt, {})
            common = a.keys() & b.keys()
            if not common:
                self._cache[key] = math.inf
            else:
                ia = [i for t in common for i in a[t]]
                ib = [i for t in common for i in b[t]]
                self._cache[key] = abs(fmean(ia) - fmean(ib))
        return self._cache[key]


def beam_search(
    g: nx.DiGraph,
    source: str,
    target: str,
    *,
    dist: Distances | None = None,
    beam: int = BEAM,
    max_infinite: int = MAX_INFINITE_STEPS,
    max_len: int = MAX_PATH_LEN,
    prefer: set[str] | frozenset[str] = frozenset(),
) -> list[list[str]]:
    """Every path the beam reaches `target` by (each a vertex list from `source`).

    Equal distances are common (two checkboxes two steps before the same Save); `prefer` (the
    similar task's vertices) breaks those ties, first by the step itself, then by how many of
    the path's vertices it holds, so the beam keeps the steps that were demonstrated.
    """
    if source not in g or target not in g:
        return []
    if source == target:
        return [[source]]
    dist = dist or Distances(g)
    frontier: list[tuple[list[str], int]] = [([source], 0)]
    found: list[list[str]] = []

    def rank(d: float, path: list[str]) -> tuple[float, bool, int, int]:
        return (d, path[-1] not in prefer, -sum(v in prefer for v in path), len(path))

    for _ in range(max_len):
        best: dict[str, tuple[tuple[float, bool, int, int], list[str], int]] = {}
        for path, n_inf in frontier:
            for nxt in g.successors(path[-1]):
                if nxt in path:
                    continue
                if nxt == target:
                    if [*path, nxt] not in found:
                        found.append([*path, nxt])
                    continue
                d = dist(nxt, target)
                k = n_inf + (1 if math.isinf(d) else 0)
                if k > max_infinite:
                    continue
                key = rank(d, [*path, nxt])
                if nxt not in best or key < best[nxt][0]:
                    best[nxt] = (key, [*path, nxt], k)
        if not best:
            break
        ranked = sorted(best.values(), key=lambda c: c[0])[:beam]
        frontier = [(p, k) for _, p, k in ranked]
    return found


def overlap(path: list[str], similar: set[str]) -> float:
    return sum(1 for v in path if v in similar) / len(path) if path else 0.0


def choose_path(paths: list[list[str]], similar: set[str]) -> list[str] | None:
    """Highest overlap with the similar task's vertices, then most of them covered, shortest."""
    if not paths:
        return None
    return max(paths, key=lambda p: (overlap(p, similar), len(similar.intersection(p)), -len(p)))
