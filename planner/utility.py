"""Personalized course utility S(c): KnowPlan, DegreeMap "Personalized utility", Eq. 3."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from common.embedder import EmbedderError
from planner.documents import AnyOf, ChooseN, CourseRef, Expr
from planner.embedding import embedding_interest
from planner.hypergraph import Hypergraph, walk
from planner.profile import Request

CONFIG = Path(__file__).parent / "config" / "utility.yaml"
_STOP = {"the", "and", "of", "to", "in", "a", "an", "for", "with", "on", "i", "am", "is", "be"}


@lru_cache(maxsize=4)
def load_config(path: str = str(CONFIG)) -> dict[str, Any]:
    return yaml.safe_load(Path(path).read_text())


def _tokens(text: str) -> Counter[str]:
    words = [w[:6] for w in re.findall(r"[a-z]+", text.lower()) if w not in _STOP]
    return Counter(words)


def lexical_interest(graph: Hypergraph, interests: list[str]) -> dict[str, float]:
    """I0: cosine similarity of interest words to course text (the default backend; the
    embedding one in planner/embedding.py keeps the interface: one score in [0, 1] per course)."""
    q = _tokens(" ".join(interests))
    if not q:
        return dict.fromkeys(graph.courses, 0.0)
    qn = math.sqrt(sum(v * v for v in q.values()))
    out = {}
    for cid, node in graph.courses.items():
        d = _tokens(f"{node.text} {node.department}")
        dn = math.sqrt(sum(v * v for v in d.values())) or 1.0
        out[cid] = sum(q[w] * d[w] for w in q) / (qn * dn)
    return out


def direct_interest(
    graph: Hypergraph, interests: list[str], cfg: dict[str, Any], source: str = str(CONFIG)
) -> dict[str, float]:
    """I0 by the backend that the config's `interest` block names (lexical when absent).

    `source` names where that block came from, so a model that cannot be loaded is reported
    together with the file (or option) that asked for it.
    """
    spec = cfg.get("interest") or {}
    backend = spec.get("backend") or "lexical"
    if backend == "lexical":
        return lexical_interest(graph, interests)
    if backend != "embedding":
        raise EmbedderError(
            f"interest.backend must be lexical or embedding, not {backend!r} ({source})"
        )
    model = spec.get("model")
    if not model:
        raise EmbedderError(f"interest.backend is embedding but interest.model is unset ({source})")
    try:
        return embedding_interest(graph, interests, str(model))
    except EmbedderError as exc:
        raise EmbedderError(f"{exc} (model named by {source})") from exc


def _diffuse(graph: Hypergraph, i0: dict[str, float], cfg: dict[str, Any]) -> dict[str, float]:
    """I_D: one step over typed edges; prerequisite edges weigh zero so topical relatedness
    never leaks along a structural dependency."""
    w = cfg["diffusion"]
    acc: dict[str, float] = defaultdict(float)
    norm: dict[str, float] = defaultdict(float)
    for e in graph.edges:
        wk = w.get(e.kind, 0.0)
        if wk <= 0 or e.src not in graph.courses or e.dst not in graph.courses:
            continue
        acc[e.src] += wk * i0[e.dst]
        acc[e.dst] += wk * i0[e.src]
        norm[e.src] += wk
        norm[e.dst] += wk
    dept_sum: dict[str, float] = defaultdict(float)
    dept_n: Counter[str] = Counter()
    for cid, node in graph.courses.items():
        dept_sum[node.department] += i0[cid]
        dept_n[node.department] += 1
    out = {}
    for cid, node in graph.courses.items():
        dept_mean = dept_sum[node.department] / dept_n[node.department]
        a = acc[cid] + w["department"] * dept_mean
        n = norm[cid] + w["department"]
        out[cid] = a / n if n else 0.0
    return out


def _unlock(graph: Hypergraph, base: dict[str, float], cfg: dict[str, Any]) -> dict[str, float]:
    """U: interest of what a course unlocks, discounted per hop and split among alternatives."""
    gamma, depth = cfg["unlock"]["discount"], cfg["unlock"]["max_depth"]
    # share[p] = list of (dependent course, 1 / number of alternatives p competes with)
    share: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for cid, node in graph.courses.items():
        for sub in walk(node.prerequisite):
            if isinstance(sub, AnyOf | ChooseN):
                refs = [i.course for i in sub.items if isinstance(i, CourseRef)]
                n_alt = len(refs) / (sub.n if isinstance(sub, ChooseN) and sub.n else 1)
                for r in refs:
                    share[r].append((cid, 1.0 / max(n_alt, 1.0)))
        direct = _direct_refs(node.prerequisite)
        for r in direct:
            share[r].append((cid, 1.0))
    memo: dict[tuple[str, int], float] = {}

    def u(c: str, d: int) -> float:
        if d >= depth:
            return 0.0
        key = (c, d)
        if key not in memo:
            memo[key] = 0.0  # cycle guard
            memo[key] = sum(
                gamma * f * (base.get(dep, 0.0) + u(dep, d + 1)) for dep, f in share.get(c, [])
            )
        return memo[key]

    raw = {c: u(c, 0) for c in graph.courses}
    top = max(raw.values(), default=0.0) or 1.0
    return {c: v / top for c, v in raw.items()}


def _direct_refs(expr: Expr | None) -> list[str]:
    """Course refs reachable without passing through an ANY_OF / CHOOSE_N (mandatory ones)."""
    if expr is None:
        return []
    if isinstance(expr, CourseRef):
        return [expr.course]
    if expr.kind == "all_of":
        return [r for i in expr.items for r in _direct_refs(i)]
    return []


def course_utility(
    graph: Hypergraph,
    request: Request,
    cfg: dict[str, Any] | None = None,
    interest_model: str | None = None,
) -> dict[str, float]:
    """S(c) for every course (Eq. 3).

    `interest_model` (a local sentence-transformers directory or installed model name)
    overrides the config's `interest` block with the embedding backend, as `--interest-model`.
    """
    source = str(CONFIG) if cfg is None else "the utility config passed to course_utility"
    cfg = cfg or load_config()
    if interest_model:
        cfg = {**cfg, "interest": {"backend": "embedding", "model": interest_model}}
        source = "--interest-model"
    wt = cfg["weights"]
    i0 = direct_interest(graph, request.interests, cfg, source)
    i_d = _diffuse(graph, i0, cfg)
    u = _unlock(graph, i0, cfg)
    program_courses: set[str] = set()
    for pid in [request.program, *request.tracks]:
        if pid and pid in graph.programs:
            program_courses |= {
                e.src for e in graph.edges if e.kind == "fulfillment" and e.dst == pid
            }
    fw_id = request.ge_framework or (
        graph.programs[request.program].ge_framework if request.program in graph.programs else None
    )
    ge_count: Counter[str] = Counter()
    if fw_id in graph.frameworks:
        for cat in graph.frameworks[fw_id].categories:
            for c in cat.courses:
                ge_count[c] += 1
    n_cat = max(len(graph.frameworks[fw_id].categories), 1) if fw_id in graph.frameworks else 1
    unlocks = Counter(e.src for e in graph.edges if e.kind == "unlock")
    max_unlock = max(unlocks.values(), default=1) or 1
    max_units = max((n.units for n in graph.courses.values()), default=1.0)
    max_level = max((n.level for n in graph.courses.values()), default=1) or 1
    coreq_of = {e.src for e in graph.edges if e.kind == "corequisite"}
    risk_scale = cfg["risk_tolerance_scale"][request.risk_tolerance]
    avoid = [a.lower() for a in request.avoid]
    out = {}
    for cid, node in graph.courses.items():
        text = f"{node.text} {node.department}".lower()
        aversion = (
            1.0 if any(a and (a in text or a == node.department.lower()) for a in avoid) else 0.0
        )
        risk = 0.5 * node.level / max_level + 0.5 * (cid in coreq_of)
        out[cid] = (
            wt["w0"] * i0[cid]
            + wt["wD"] * i_d[cid]
            + wt["wU"] * u[cid]
            + wt["wM"] * (cid in program_courses)
            + wt["wG"] * min(ge_count[cid] / n_cat * 3, 1)
            + wt["wO"] * unlocks[cid] / max_unlock
            - wt["wW"] * node.units / max_units
            - wt["wR"] * risk_scale * risk
            - wt["wA"] * aversion
        )
    return out


def option_value(graph: Hypergraph) -> dict[str, float]:
    """O(c): share of the catalog a course directly unlocks (used by the option-value stage)."""
    unlocks = Counter(e.src for e in graph.edges if e.kind == "unlock")
    top = max(unlocks.values(), default=1) or 1
    return {c: unlocks[c] / top for c in graph.courses}
