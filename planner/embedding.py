"""Embedding direct interest I0: KnowPlan, "DegreeMap: Personalized Degree Planning", Eq. 3."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from common.embedder import load_embedder, model_key
from planner.hypergraph import Hypergraph


def course_text(graph: Hypergraph, cid: str) -> str:
    """The text I0 compares against; the same string the lexical I0 tokenises."""
    node = graph.courses[cid]
    return f"{node.text} {node.department}"


def _encode(model: str, texts: tuple[str, ...]) -> np.ndarray:
    emb: Any = load_embedder(model).encode(
        list(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    out = np.asarray(emb, dtype=np.float32)
    out.flags.writeable = False  # shared through the caches below
    return out


# The benchmark and the ladder call the utility once per request (and per rank), so the
# catalog is encoded once per (model, course texts) and each interest list once per model.
_course_matrix = lru_cache(maxsize=4)(_encode)
_interest_matrix = lru_cache(maxsize=256)(_encode)


def embedding_interest(graph: Hypergraph, interests: list[str], model: str) -> dict[str, float]:
    """I0 per course: the best cosine between any one interest and the course text, in [0, 1].

    Same contract as `lexical_interest`: one score per course, 0 for every course when the
    request names no interests. Max over interests (rather than one joined query) keeps a
    course that matches one interest strongly from being diluted by unrelated interests.
    """
    phrases = tuple(s.strip() for s in interests if s and s.strip())
    if not phrases:
        return dict.fromkeys(graph.courses, 0.0)
    key = model_key(model)
    cids = list(graph.courses)
    courses = _course_matrix(key, tuple(course_text(graph, c) for c in cids))
    queries = _interest_matrix(key, phrases)
    # Normalised embeddings: the dot product is the cosine; negative cosines mean "unrelated",
    # which the lexical I0 (non-negative counts) also scores 0.
    sims = np.clip((courses @ queries.T).max(axis=1), 0.0, 1.0)
    return {c: float(s) for c, s in zip(cids, sims, strict=True)}
