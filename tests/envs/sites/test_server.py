"""The sites' servers: 127.0.0.1 only, walls, listings with sort and paging, modal, cart."""

from __future__ import annotations

import httpx
import pytest
from fastapi.testclient import TestClient

from envs.sites.app import build_app
from envs.sites.runtime import SiteWorld
from envs.sites.world import generate_world
from envs.webapp import LoopbackOnly

W = generate_world()


@pytest.fixture(scope="module")
def world():
    with SiteWorld(W) as w:
        yield w


def test_servers_bind_loopback_and_refuse_other_clients(world) -> None:
    for url in [*world.urls.values(), world.search_url]:
        assert url.startswith("http://127.0.0.1:")
        assert httpx.get(url + "/").status_code == 200
    far = TestClient(LoopbackOnly(build_app(W.sites["shop"])), client=("192.168.1.20", 4000))
    r = far.get("/")
    assert r.status_code == 403 and "127.0.0.1 only" in r.text
    near = TestClient(
        LoopbackOnly(build_app(W.sites["shop"])),
        client=("127.0.0.1", 4000),
        base_url="http://127.0.0.1:4000",
    )
    assert near.get("/").status_code == 200


@pytest.mark.parametrize(
    ("site", "wall", "status", "text"),
    [
        ("directory", "captcha", 200, "Verify you are human"),
        ("docs", "forbidden", 403, "Access denied"),
    ],
)
def test_walled_items_show_their_wall(world, site: str, wall: str, status: int, text: str) -> None:
    item = next(i for i in W.sites[site].items if i.wall == wall)
    r = httpx.get(f"{world.urls[site]}/item/{item.id}")
    assert r.status_code == status and text in r.text
    assert item.title not in r.text and "Item no.:" not in r.text  # nothing behind the wall leaks


def test_login_wall_redirects_and_never_lets_anyone_in(world) -> None:
    page = next(p for p in W.sites["booking"].pages if p.wall == "login")
    r = httpx.get(f"{world.urls['booking']}/p/{page.kind}/{page.id}")
    assert r.status_code == 303 and r.headers["location"].startswith("/login?next=")
    form = httpx.post(f"{world.urls['booking']}/login", content=b"email=a%40b.c&password=x")
    assert form.status_code == 401 and "Sign in to continue" in form.text


def test_rate_limited_seller_page(world) -> None:
    page = next(p for p in W.sites["shop"].pages if p.wall == "rate_limited")
    r = httpx.get(f"{world.urls['shop']}/p/seller/{page.id}")
    assert r.status_code == 429 and r.headers["retry-after"] == "3600"


def test_listing_sorts_and_pages(world) -> None:
    base = f"{world.urls['shop']}/c/monitors"
    first = httpx.get(base).text
    assert "Page 1 of" in first and "Next page" in first
    cheap = httpx.get(base + "?sort=price").text
    prices = [
        float(p.replace(",", ""))
        for p in __import__("re").findall(r"Price: \$([\d,]+\.\d\d)", cheap)
    ]
    assert prices == sorted(prices) and len(prices) == 6
    assert "Page 2 of" in httpx.get(base + "?sort=price&page=2").text


def test_modal_until_dismissed_and_cart(world) -> None:
    url = world.urls["shop"]
    assert 'id="modal"' in httpx.get(url + "/").text
    assert 'id="modal"' not in httpx.get(url + "/", cookies={"shop_modal": "1"}).text
    item = next(i for i in W.sites["shop"].items if i.facts["Availability"] == "In stock")
    with httpx.Client(base_url=url, follow_redirects=True) as client:
        r = client.post("/cart/add", content=f"item={item.id}".encode())
        assert r.status_code == 200 and item.title in r.text


def test_search_and_maps_providers(world) -> None:
    task = next(t for t in W.tasks if t.id == "docs-01")
    r = httpx.get(world.search_url + "/search", params={"q": task.request})
    gold = W.sites["docs"].item(W.gold["docs-01"].valid[0])
    assert gold.title in r.text
    m = httpx.get(
        world.search_url + "/maps", params={"q": "Pharmacy Old Town", "near": "Old Town"}
    ).text
    dists = [float(x) for x in __import__("re").findall(r"Distance from Old Town: ([\d.]+) km", m)]
    assert dists and dists == sorted(dists)


def test_maps_near_a_place_it_does_not_know_lists_places_instead_of_failing(world) -> None:
    r = httpx.get(world.search_url + "/maps", params={"q": "Pharmacy", "near": "Atlantis"})
    assert r.status_code == 200 and "Pharmacy" in r.text
