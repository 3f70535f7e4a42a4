"""CatalogBrowse end to end over the gate: closure, verify, masked recovery, budget stop,
tamper detection, a cursor left unprocessed, and failed pages recorded (KnowPlan, Algorithm 1)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from catalogbrowse.adapters.base import Link
from catalogbrowse.agent import browse
from catalogbrowse.closure import certificate
from catalogbrowse.policy import load_config
from catalogbrowse.state import CatalogState
from catalogbrowse.verify import verify_run
from envs.catalog.gate import Budgets
from envs.catalog.server import serve
from evals.catalog.metrics import score
from planner.documents import load_docs


def _run(snap, out, policy="catalogbrowse", budgets=None, config=None):
    server, _ = serve(snap / "site", budgets)
    with server:
        return browse(server.url, out, policy, config=config)


@pytest.fixture(scope="module")
def pdf_run(snapshots, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "pdf"
    return _run(snapshots["pdf"], out), out


def test_closure_certificate_holds_and_verifies(pdf_run, snapshots) -> None:
    res, out = pdf_run
    assert res.stop == "closure" and res.certificate["holds"]
    docs = load_docs(out)  # the planner reads the output unchanged
    assert docs.courses.courses and docs.programs.programs and docs.ge.frameworks
    verdict = verify_run(out, snapshots["pdf"] / "site")
    assert verdict.ok, verdict.gaps
    s = score(snapshots["pdf"] / "gold", out, snapshots["pdf"] / "site")
    assert s["inventory_recall"] == 1.0 and s["typed_precision"] == 1.0
    # This family's bad pages (HTML behind a .pdf link, a dead link) are failed, not fatal.
    failed = res.certificate["failed_pages"]
    assert any("not a PDF" in why for why in failed.values())
    assert any("404" in why for why in failed.values())


def test_tampered_receipt_fails_verify(pdf_run, snapshots, tmp_path) -> None:
    _res, out = pdf_run
    bad = tmp_path / "tampered"
    shutil.copytree(out, bad)
    lines = (bad / "receipts.jsonl").read_text().splitlines()
    r = json.loads(lines[3])
    r["url"] = r.get("url") or "/elsewhere"
    r["status"] = 200 if r.get("status") != 200 else 404
    lines[3] = json.dumps(r)
    (bad / "receipts.jsonl").write_text("\n".join(lines) + "\n")
    verdict = verify_run(bad, snapshots["pdf"] / "site")
    assert not verdict.ok and any("tampered" in g for g in verdict.gaps)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pathwise.cli",
            "catalog",
            "verify",
            str(bad),
            "--snapshot",
            str(snapshots["pdf"] / "site"),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and "does NOT verify" in proc.stdout


def test_masked_source_is_recovered_by_obligations(masked_courseleaf, tmp_path) -> None:
    ours = _run(masked_courseleaf, tmp_path / "ours")
    bfs = _run(masked_courseleaf, tmp_path / "bfs", "bfs")
    s_ours = score(masked_courseleaf / "gold", tmp_path / "ours", masked_courseleaf / "site")
    s_bfs = score(masked_courseleaf / "gold", tmp_path / "bfs", masked_courseleaf / "site")
    assert s_ours["masked_total"] > 0
    assert s_ours["masked_recovery"] == 1.0 and s_bfs["masked_recovery"] == 0.0
    assert ours.pages < bfs.pages and ours.certificate["holds"]


def test_budget_stops_the_agent(snapshots, tmp_path) -> None:
    res = _run(snapshots["acalog"], tmp_path / "budget", budgets=Budgets(pages=6))
    assert res.stop == "budget" and res.pages == 6
    assert not res.certificate["holds"] and res.certificate["pending"]


def test_closure_refuses_to_certify_an_unprocessed_cursor() -> None:
    state = CatalogState("/")
    state.links["/list?page=2"] = Link("/list?page=2", "2", "cursor")
    cert = certificate(state, quiet_passes=2, facts=[], documents_valid=True)
    assert not cert["holds"] and not cert["conditions"]["index_closed"]
    assert "index:/list?page=2" in cert["pending"]


def test_exhaustive_baseline_opens_more_for_the_same_inventory(snapshots, tmp_path) -> None:
    cfg = load_config()
    ours = _run(snapshots["courseleaf"], tmp_path / "o", config=cfg)
    ex = _run(snapshots["courseleaf"], tmp_path / "e", "exhaustive", Budgets(pages=None))
    so = score(snapshots["courseleaf"] / "gold", tmp_path / "o", snapshots["courseleaf"] / "site")
    se = score(snapshots["courseleaf"] / "gold", tmp_path / "e", snapshots["courseleaf"] / "site")
    assert so["inventory_recall"] >= se["inventory_recall"] == 1.0
    assert ours.pages <= 0.53 * ex.pages
