"""One contract site as a FastAPI app over SQLite: listings, item pages, related pages, walls.

WebRider Appendix B: the pages carry the friction the issue names (pagination, sort, a modal on
first visit, out-of-stock items, decoys, walls). Facts render as "Label: value" lines so what a
browser shows is exactly what the gates later check; gold never reaches a page.
"""

from __future__ import annotations

import math
import re
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel

from envs.sites.model import SiteData, number_in
from envs.webapp import SqliteStore, install_login, make_templates, wall_response

PAGE_SIZE = 6
TEMPLATES = Path(__file__).parent / "templates"
SORTS = {
    "relevance": ("Best match", "id ASC"),
    "price": ("Lowest price first", "price IS NULL, price ASC, id ASC"),
    "rating": ("Highest rated first", "rating IS NULL, rating DESC, id ASC"),
}
_PRICE_FACTS = ("Price", "Nightly rate")


class ItemRow(BaseModel):
    id: str
    category: str
    slug: str
    title: str
    facts: dict[str, str]
    snippet: list[str]
    related: dict[str, str]
    wall: str | None
    price: float | None
    rating: float | None


class PageRow(BaseModel):
    id: str
    kind: str
    title: str
    facts: dict[str, str]
    wall: str | None


def _local(path: str) -> str:
    """A same-site listing path to return to (anything else is dropped: no open redirects)."""
    return path if path.startswith(("/c/", "/browse")) else ""


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def seed_store(site: SiteData) -> SqliteStore:
    rows = []
    for it in site.items:
        price = next((number_in(it.facts[f]) for f in _PRICE_FACTS if f in it.facts), None)
        rating = number_in(it.facts["Rating"]) if "Rating" in it.facts else None
        rows.append(
            ItemRow(
                id=it.id,
                category=it.category,
                slug=slugify(it.category),
                title=it.title,
                facts=it.facts,
                snippet=it.snippet,
                related=it.related,
                wall=it.wall,
                price=price,
                rating=rating,
            )
        )
    pages = [
        PageRow(id=p.id, kind=p.kind, title=p.title, facts=p.facts, wall=p.wall) for p in site.pages
    ]
    store = SqliteStore()
    store.seed({"items": (ItemRow, "id", rows), "pages": (PageRow, "id", pages)})
    return store


def build_app(site: SiteData, *, maps_url: str = "") -> FastAPI:
    """The site's app. `maps_url` is the maps provider's base (the item page's map link)."""
    app = FastAPI(title=site.title, docs_url=None, redoc_url=None, openapi_url=None)
    store = seed_store(site)
    templates = make_templates(TEMPLATES)
    carts: dict[str, list[str]] = {}
    cats = [(c, slugify(c)) for c in site.categories]
    app.state.maps_url = maps_url

    def render(request: Request, name: str, **ctx: Any) -> Response:
        modal = site.modal and request.cookies.get(f"{site.name}_modal") is None
        return templates.TemplateResponse(
            request,
            name,
            {"site": site, "site_title": site.title, "cats": cats, "modal": modal, **ctx},
        )

    def listing(
        request: Request,
        heading: str,
        where: str,
        params: list[Any],
        sort: str,
        page: int,
        base: str,
    ) -> Response:
        order = SORTS.get(sort, SORTS["relevance"])[1]
        total = store.one("items", f"SELECT COUNT(*) AS n FROM items WHERE {where}", params)
        n = int(total["n"]) if total else 0
        pages = max(1, math.ceil(n / PAGE_SIZE))
        page = min(max(page, 1), pages)
        rows = store.query(
            "items",
            f"SELECT * FROM items WHERE {where} ORDER BY {order} LIMIT ? OFFSET ?",
            [*params, PAGE_SIZE, (page - 1) * PAGE_SIZE],
        )
        sep = "&" if "?" in base else "?"
        here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return render(
            request,
            "listing.html",
            heading=heading,
            rows=rows,
            n=n,
            page=page,
            pages=pages,
            sort=sort,
            sorts=SORTS,
            base=base,
            sep=sep,
            here=here,
        )

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request) -> Response:
        return render(request, "home.html")

    @app.get("/c/{slug}", response_class=HTMLResponse)
    def category(request: Request, slug: str, sort: str = "relevance", page: int = 1) -> Response:
        name = next((c for c, s in cats if s == slug), None)
        if name is None:
            return render(request, "notfound.html")
        return listing(request, name, "slug = ?", [slug], sort, page, f"/c/{slug}")

    @app.get("/browse", response_class=HTMLResponse)
    def browse(request: Request, q: str = "", sort: str = "relevance", page: int = 1) -> Response:
        words = [w for w in re.findall(r"[a-z0-9]+", q.lower()) if len(w) > 2][:6]
        where = " OR ".join("lower(title || ' ' || category) LIKE ?" for _ in words) or "1=1"
        return listing(
            request,
            f'Results for "{q}"',
            where,
            [f"%{w}%" for w in words],
            sort,
            page,
            f"/browse?q={q}",
        )

    @app.get("/item/{item_id}", response_class=HTMLResponse)
    def item(request: Request, item_id: str, back: str = Query("", alias="from")) -> Response:
        row = store.one("items", "SELECT * FROM items WHERE id = ?", [item_id])
        if row is None:
            return render(request, "notfound.html")
        if row["wall"]:
            return wall_response(request, templates, row["wall"], site.title)
        links = [
            (site.related_links.get(kind, kind.title()), kind, pid)
            for kind, pid in row["related"].items()
        ]
        return render(
            request,
            "item.html",
            row=row,
            links=links,
            maps_url=app.state.maps_url,
            back=_local(back),
        )

    @app.get("/p/{kind}/{page_id}", response_class=HTMLResponse)
    def related(
        request: Request, kind: str, page_id: str, back: str = Query("", alias="from")
    ) -> Response:
        row = store.one("pages", "SELECT * FROM pages WHERE id = ? AND kind = ?", [page_id, kind])
        if row is None:
            return render(request, "notfound.html")
        if row["wall"]:
            return wall_response(request, templates, row["wall"], site.title)
        return render(request, "related.html", row=row, back=_local(back))

    @app.post("/cart/add")
    async def cart_add(request: Request) -> Response:
        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        sid = request.cookies.get(f"{site.name}_sid") or uuid.uuid4().hex
        carts.setdefault(sid, []).extend(form.get("item", [])[:1])
        resp = RedirectResponse("/cart", status_code=303)
        resp.set_cookie(f"{site.name}_sid", sid, httponly=True, samesite="lax")
        return resp

    @app.get("/cart", response_class=HTMLResponse)
    def cart(request: Request) -> Response:
        ids = carts.get(request.cookies.get(f"{site.name}_sid") or "", [])
        rows = [
            r for i in ids if (r := store.one("items", "SELECT * FROM items WHERE id = ?", [i]))
        ]
        return render(request, "cart.html", rows=rows)

    install_login(app, templates, site.title)
    return app
