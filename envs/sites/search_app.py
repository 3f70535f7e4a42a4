"""The local search and maps provider over every contract site's data (WebRider Appendix H,
"Search and Maps grounding"): what `search` and `maps` actions reach when nothing is online.

Ranking is plain IDF-weighted word overlap over each item's title, category and listing facts;
results link to the item pages on their own sites. The maps page lists directory places with
the distances and walking times their map entries hold, for the neighbourhood asked about.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response

from envs.sites.model import World, number_in
from envs.webapp import make_templates

PAGE_SIZE = 6
RELEVANCE_CUT = 0.75
MAP_RESULTS = 8
TEMPLATES = Path(__file__).parent / "templates"
# Request boilerplate as well as function words: "find", "compare", "under" name no thing.
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "for",
        "of",
        "to",
        "in",
        "on",
        "at",
        "with",
        "by",
        "is",
        "it",
        "my",
        "what",
        "does",
        "do",
        "that",
        "this",
        "from",
        "find",
        "compare",
        "recommend",
        "check",
        "whether",
        "plan",
        "under",
        "including",
        "all",
        "least",
        "most",
        "within",
        "one",
        "best",
        "whose",
        "which",
        "has",
        "have",
        "are",
        "per",
        "its",
        "give",
    ]
)


def words(text: str) -> list[str]:
    # Plural folding is the only stemming: "repairs" finds "Bike repair".
    out = re.findall(r"[a-z0-9]+(?:\.[0-9]+)?", text.lower())
    return [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in out if w not in _STOP]


class Index:
    def __init__(self, docs: list[dict[str, Any]]) -> None:
        self.docs = docs
        self.terms = [set(words(d["text"])) for d in docs]
        df = Counter(t for ts in self.terms for t in ts)
        self.idf = {t: math.log(1 + len(docs) / n) for t, n in df.items()}

    def rank(self, query: str) -> list[dict[str, Any]]:
        q = set(words(query))
        words_q = {t for t in q if not t[0].isdigit()}
        scored = []
        for i, ts in enumerate(self.terms):
            hit = q & ts
            alpha = sum(self.idf.get(t, 0.0) for t in hit & words_q)
            # Numbers help ranking (error codes, versions) but never decide what is listed.
            scored.append(
                (alpha, alpha + 0.5 * sum(self.idf.get(t, 0.0) for t in hit - words_q), i)
            )
        top = max((a for a, _, _ in scored), default=0.0)
        # Results far below the best match are noise a real engine would not list.
        keep = [(s, i) for a, s, i in scored if s > 0 and a >= RELEVANCE_CUT * top]
        return [self.docs[i] for s, i in sorted(keep, key=lambda p: (-p[0], p[1]))]


def _distance(mp: Any, key: str) -> float:
    d = number_in(mp.facts.get(key, "")) if mp else None
    return math.inf if d is None else d


def build_search_app(world: World, site_urls: dict[str, str]) -> FastAPI:
    app = FastAPI(title="Local search", docs_url=None, redoc_url=None, openapi_url=None)
    templates = make_templates(TEMPLATES)
    docs = []
    for name, site in world.sites.items():
        for it in site.items:
            snippet = " · ".join(f"{f}: {it.facts[f]}" for f in it.snippet)
            docs.append(
                {
                    "title": it.title,
                    "url": f"{site_urls[name]}/item/{it.id}",
                    "site": site.title,
                    "category": it.category,
                    "snippet": snippet,
                    "text": " ".join(
                        [
                            it.title,
                            it.category,
                            *(f"{k} {v}" for k, v in it.facts.items()),
                            site.title,
                        ]
                    ),
                }
            )
    index = Index(docs)
    places = (
        [
            (it, world.sites["directory"].page(it.related["map"]))
            for it in world.sites["directory"].items
        ]
        if "directory" in world.sites
        else []
    )
    map_index = Index(
        [
            {"i": i, "text": f"{it.title} {it.category} {it.facts.get('Neighborhood', '')}"}
            for i, (it, _) in enumerate(places)
        ]
    )
    dir_url = site_urls.get("directory", "")

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request) -> Response:
        return templates.TemplateResponse(
            request,
            "search.html",
            {"site_title": "Local search", "q": "", "rows": [], "page": 1, "pages": 1, "n": 0},
        )

    @app.get("/search", response_class=HTMLResponse)
    def search(request: Request, q: str = "", page: int = 1) -> Response:
        hits = index.rank(q)
        pages = max(1, math.ceil(len(hits) / PAGE_SIZE))
        page = min(max(page, 1), pages)
        rows = hits[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        return templates.TemplateResponse(
            request,
            "search.html",
            {
                "site_title": "Local search",
                "q": q,
                "rows": rows,
                "page": page,
                "pages": pages,
                "n": len(hits),
            },
        )

    @app.get("/maps", response_class=HTMLResponse)
    def maps(request: Request, q: str = "", near: str = "", page: int = 1) -> Response:
        hits = [places[d["i"]] for d in map_index.rank(q)]
        if near:
            # A map orders places by how far they are from where the user is.
            key = f"Distance from {near}"
            # A place without a distance from `near` (a place name the map does not know) goes
            # last instead of failing the page.
            hits.sort(key=lambda p: _distance(p[1], key))
        pages = max(1, math.ceil(len(hits) / MAP_RESULTS))
        page = min(max(page, 1), pages)
        hits = hits[(page - 1) * MAP_RESULTS : page * MAP_RESULTS]
        rows = []
        for it, mp in hits:
            facts = {
                k: v for k, v in (mp.facts.items() if mp else []) if not near or k.endswith(near)
            }
            rows.append(
                {
                    "title": it.title,
                    "url": f"{dir_url}/item/{it.id}",
                    "address": it.facts.get("Address", ""),
                    "facts": facts,
                }
            )
        return templates.TemplateResponse(
            request,
            "maps.html",
            {
                "site_title": "Local maps",
                "q": q,
                "near": near,
                "rows": rows,
                "page": page,
                "pages": pages,
            },
        )

    return app
