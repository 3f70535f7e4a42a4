"""A full audit session in a real Chromium: two raters, keyboard and mouse labels, a closed
browser that resumes, then the report. Page screenshots go to artifacts/audit/ (gitignored)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agent_runtime.browser.launch import CHROMIUM_PATH, BrowserSession
from envs.webapp import AppServer
from evals.audit.app import create_app
from evals.audit.report import build_report
from evals.audit.report_md import to_markdown
from pathwise.cli import app as cli
from tests.helpers.viewer_runs import FIXTURE

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM_PATH.exists(), reason=f"{CHROMIUM_PATH} missing"),
]
ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts" / "audit"


def shoot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


PRESSED = "document.querySelectorAll('.astep button[aria-pressed=\"true\"]').length"
COMPLETE = "document.getElementById('pair-state').textContent === 'complete'"


def pressed(page: Any) -> int:
    return page.locator('.astep button[aria-pressed="true"]').count()


def sign_in(page: Any, url: str, name: str) -> None:
    page.goto(url + "/")
    page.fill("#name", name)
    page.click("button[type=submit]")
    page.wait_for_url("**/pair/*")


def label_by_mouse(page: Any, rng: random.Random, choice: str) -> None:
    cards = page.locator(".astep")
    for i in range(cards.count()):
        value = rng.choice(["yes", "yes", "no", "cj"])
        cards.nth(i).locator(f'button[data-value="{value}"]').click()
        page.wait_for_function(f"{PRESSED} >= {i + 1}")
    page.locator(f'.prefer button[data-value="{choice}"]').click()
    page.wait_for_function(COMPLETE)


def test_two_raters_label_resume_and_report(tmp_path: Path) -> None:
    study = tmp_path / "study.sqlite"
    args = ["audit", "create", "--arms", str(FIXTURE / "perturbed"), str(FIXTURE / "teacher")]
    r = CliRunner().invoke(
        cli, [*args, "--out", str(study), "--pairs", "3", "--anchors", "1", "--raters", "2"]
    )
    assert r.exit_code == 0, r.output
    rng = random.Random(3)
    with (
        AppServer(create_app(study)) as server,
        BrowserSession(viewport={"width": 1400, "height": 1000}) as b,
    ):
        ada = b.page
        ada.goto(server.url + "/")
        shoot(ada, "signin")
        sign_in(ada, server.url, "Ada")
        assert "Pair 1 of 3" in ada.inner_text(".progress")
        # Keyboard: j focuses the first step; y / n / c label it and move on.
        n_steps = ada.locator(".astep").count()
        ada.keyboard.press("j")
        for i in range(n_steps):
            ada.keyboard.press("ync"[i % 3])
            ada.wait_for_function(f"{PRESSED} === {i + 1}")
        ada.keyboard.press("1")  # prefer the left side
        ada.wait_for_function(COMPLETE)
        assert "1 of 3 finished" in ada.inner_text("#done-count")
        shoot(ada, "pair")
        ada.keyboard.press("]")
        ada.wait_for_url("**/pair/2")
        first = ada.locator(".astep").first
        first.locator('button[data-value="no"]').click()
        ada.wait_for_function(f"{PRESSED} === 1")
        ada.reload()  # a reload shows what was saved
        assert pressed(ada) == 1
        assert first.locator('button[data-value="no"]').get_attribute("aria-pressed") == "true"

        # Bob in his own browser context: none of Ada's labels are visible to him.
        bob_ctx = b.browser.new_context(viewport={"width": 1400, "height": 1000})
        bob = bob_ctx.new_page()
        sign_in(bob, server.url, "Bob")
        assert pressed(bob) == 0
        for pos in (1, 2, 3):
            bob.goto(f"{server.url}/pair/{pos}")
            assert pressed(bob) == 0
            label_by_mouse(bob, rng, ["left", "right", "tie"][pos - 1])
        bob.goto(server.url + "/next")
        bob.wait_for_url("**/done")
        assert "All 3 pairs are labelled" in bob.inner_text("main")
        shoot(bob, "done")
        bob_ctx.close()

        # Ada closes her browser; a fresh one with no cookie resumes at her first open pair.
        ada_ctx = b.browser.new_context(viewport={"width": 1400, "height": 1000})
        ada2 = ada_ctx.new_page()
        sign_in(ada2, server.url, "Ada")
        assert ada2.url.endswith("/pair/2") and pressed(ada2) == 1
        for pos in (2, 3):
            ada2.goto(f"{server.url}/pair/{pos}")
            label_by_mouse(ada2, rng, "left")
        ada2.goto(server.url + "/next")
        ada2.wait_for_url("**/done")
        ada_ctx.close()

    rep = build_report(study)
    assert [r["rater"] for r in rep["raters"]] == ["Ada", "Bob"]
    assert all(r["steps_labelled"] == r["steps"] == 15 for r in rep["raters"])
    assert all(r["pairs_labelled"] == 3 for r in rep["raters"])
    assert all(p["hcp"] != "unrated" for p in rep["pairs"])
    assert rep["hcp"]["N"] + rep["hcp"]["cj"] == 3
    anchor = next(p for p in rep["pairs"] if p["kind"] == "anchor")
    steps_in_anchor = sum(
        p["A"]["judgeable"] + p["A"]["cj_steps"] + p["B"]["judgeable"] + p["B"]["cj_steps"]
        for p in [anchor]
    )
    assert rep["agreement"]["pcs_steps"] == steps_in_anchor and rep["agreement"]["hcp_pairs"] == 1
    assert rep["overlap"]["n"] > 0  # MiniWoB runs carry gates
    (ARTIFACTS / "report.md").write_text(to_markdown(rep), encoding="utf-8")
