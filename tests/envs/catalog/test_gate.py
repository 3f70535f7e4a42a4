"""The precommit gate over real HTTP: no bytes without a seal, one reveal per seal for exactly
the sealed URL, budgets paid at commit, and a receipt chain that exposes tampering."""

from __future__ import annotations

import httpx
import pytest

from catalogbrowse.source import BudgetExhausted, GateClient
from envs.catalog.gate import Budgets
from envs.catalog.receipts import chain_errors
from envs.catalog.server import SEAL_HEADER, serve


def test_precommit_refuses_an_unsealed_open(snapshots) -> None:
    server, gate = serve(snapshots["courseleaf"] / "site")
    with server:
        root = gate.snapshot.manifest.root
        r = httpx.get(server.url + root)
        assert r.status_code == 403 and "precommit" in r.json()["error"]
        r = httpx.get(server.url + root, headers={SEAL_HEADER: "f" * 64})
        assert r.status_code == 403
        client = GateClient(server.url)
        other = client.commit({"kind": "open", "url": "/courses/"}, "s0").seal
        r = httpx.get(server.url + root, headers={SEAL_HEADER: other})
        assert r.status_code == 403 and "commits to" in r.json()["error"]
        page = client.open(root, "s1")
        assert page.status == 200 and b"Course Descriptions" in page.body
        seal = gate.receipts[-1].seal
        assert httpx.get(server.url + root, headers={SEAL_HEADER: seal}).status_code == 403
        client.close()
    assert gate.receipts[0].type != "reveal"
    assert chain_errors(gate.receipts) == []


def test_budget_is_enforced_at_the_gate(snapshots) -> None:
    server, gate = serve(snapshots["pdf"] / "site", Budgets(pages=2, model_calls=1))
    with server:
        client = GateClient(server.url)
        client.open("/bulletin/", "a")
        client.open("/news/", "b")
        with pytest.raises(BudgetExhausted):
            client.open("/bulletin/", "c")
        client.seal_model_call("CS 101 with a C", 1, "d")
        with pytest.raises(BudgetExhausted):
            client.seal_model_call("CS 101 with a C", 2, "e")
        client.close()
    assert gate.used == {"open": 2, "model": 1}


def test_a_tampered_receipt_breaks_the_chain(snapshots) -> None:
    server, _gate = serve(snapshots["pdf"] / "site")
    with server:
        client = GateClient(server.url)
        client.open("/bulletin/", "a")
        client.open("/news/", "b")
        receipts = client.receipts()
        client.close()
    assert chain_errors(receipts) == []
    forged = [r.model_copy() for r in receipts]
    forged[1] = forged[1].model_copy(update={"sha256": "0" * 64})
    assert any("tampered" in e for e in chain_errors(forged))
    dropped = receipts[:1] + receipts[2:]
    assert chain_errors(dropped)
