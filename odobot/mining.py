"""Common HTML sub-structure mining: OdoBot Section III-C1 (WL hashes, MinHash/LSH, DBSCAN).

A DOM snapshot becomes a parent->child tree; networkx's Weisfeiler-Lehman subgraph hashes
(16 iterations) describe the structure below every element; each element's hashes become a
datasketch MinHash (256 permutations); MinHashLSH (threshold 0.95) proposes similar pairs,
their exact Jaccard distances fill a precomputed matrix (1 elsewhere) and scikit-learn's DBSCAN
(eps 0.9, min_samples 2) clusters it, the settings of the authors' odo-lsh service. Clustered
elements that share a parent make that parent a container of repeated sub-structures.
"""

from __future__ import annotations

import warnings
from html.parser import HTMLParser

import networkx as nx
import numpy as np
from pydantic import BaseModel, ConfigDict

WL_ITERATIONS = 16
MINHASH_PERMS = 256
LSH_THRESHOLD = 0.95
DBSCAN_EPS = 0.9
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
         "source", "track", "wbr"}  # fmt: skip


class Container(BaseModel):
    """A dynamicXpath's prefix and tag: a parent whose `tag` children repeat one structure."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    prefix: str
    tag: str
    children: tuple[str, ...]  # XPaths of the clustered children


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.g = nx.DiGraph()
        self.stack: list[int] = []
        self.counts: list[dict[str, int]] = [{}]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        parent = self.stack[-1] if self.stack else None
        siblings = self.counts[-1]
        siblings[tag] = siblings.get(tag, 0) + 1
        base = self.g.nodes[parent]["xpath"] if parent is not None else ""
        node = self.g.number_of_nodes()
        self.g.add_node(node, label=tag, xpath=f"{base}/{tag}[{siblings[tag]}]")
        if parent is not None:
            self.g.add_edge(parent, node)
        if tag in _VOID:
            return
        self.stack.append(node)
        self.counts.append({})

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        # Pop to the matching open element (browsers' serialisation is well nested).
        for k in range(len(self.stack) - 1, -1, -1):
            if self.g.nodes[self.stack[k]]["label"] == tag:
                del self.stack[k:]
                del self.counts[k + 1 :]
                return


def dom_tree(html: str) -> nx.DiGraph:
    """Parent->child element tree; node attrs: label (tag), xpath (executor-style, indexed)."""
    p = _Tree()
    p.feed(html)
    p.close()
    return p.g


def mine_containers(html: str) -> list[Container]:
    from datasketch import MinHash, MinHashLSH
    from sklearn.cluster import DBSCAN

    g = dom_tree(html)
    nodes = [n for n in g.nodes if g.nodes[n]["label"] not in ("html", "head", "body")]
    if len(nodes) < 2:
        return []
    with warnings.catch_warnings():
        # networkx notes that directed-graph hashes changed in 3.5; ours are never stored.
        warnings.filterwarnings("ignore", message="The hashes produced for directed graphs")
        shingles = nx.weisfeiler_lehman_subgraph_hashes(
            g, node_attr="label", iterations=WL_ITERATIONS, digest_size=16,
            include_initial_labels=True,
        )  # fmt: skip
    sets = {n: set(shingles[n]) for n in nodes}
    lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=MINHASH_PERMS)
    hashes: dict[int, MinHash] = {}
    for n in nodes:
        mh = MinHash(num_perm=MINHASH_PERMS)
        mh.update_batch([s.encode() for s in sets[n]])
        hashes[n] = mh
        lsh.insert(str(n), mh)
    index = {n: i for i, n in enumerate(nodes)}
    dist = np.ones((len(nodes), len(nodes)))
    np.fill_diagonal(dist, 0.0)
    for n in nodes:
        for other in lsh.query(hashes[n]):
            m = int(other)
            if m != n:
                a, b = sets[n], sets[m]
                dist[index[n], index[m]] = 1.0 - len(a & b) / len(a | b)
    labels = DBSCAN(eps=DBSCAN_EPS, min_samples=2, metric="precomputed").fit(dist).labels_
    groups: dict[tuple[int, int], list[int]] = {}
    for n, lab in zip(nodes, labels, strict=True):
        if lab < 0:
            continue
        parents = list(g.predecessors(n))
        if parents:
            groups.setdefault((int(lab), parents[0]), []).append(n)
    out = []
    for (_, parent), members in sorted(groups.items(), key=lambda kv: kv[0][1]):
        if len(members) < 2:
            continue
        out.append(
            Container(
                prefix=g.nodes[parent]["xpath"],
                tag=g.nodes[members[0]]["label"],
                children=tuple(g.nodes[m]["xpath"] for m in members),
            )
        )
    return out


def dynamic_xpath(xpath: str, containers: list[Container]) -> tuple[str, str, str] | None:
    """(prefix, tag, suffix) when `xpath` lies in (or is) a clustered child of a container."""
    best: tuple[str, str, str] | None = None
    for c in containers:
        for child in c.children:
            if xpath == child or xpath.startswith(child + "/"):
                cand = (c.prefix, c.tag, xpath[len(child) :])
                # The innermost container wins: a card's own link list beats the card grid.
                if best is None or len(cand[0]) > len(best[0]):
                    best = cand
    return best
