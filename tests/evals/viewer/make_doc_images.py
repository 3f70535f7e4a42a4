"""Regenerate the README's two screenshots (docs/images/) from the committed fixture runs.

PYTHONPATH=. .venv/bin/python tests/evals/viewer/make_doc_images.py
"""

from __future__ import annotations

import io
import sqlite3
import sys
import tempfile
from pathlib import Path

from PIL import Image

from agent_runtime.browser.launch import BrowserSession
from envs.webapp import AppServer
from evals.audit.app import create_app as audit_app
from evals.audit.config import load_settings
from evals.audit.create import create_study
from evals.viewer.app import create_app as viewer_app
from tests.helpers.viewer_runs import FIXTURE

ROOT = Path(__file__).resolve().parents[3]
RUNS = FIXTURE
OUT = ROOT / "docs" / "images"
SIZE = {"width": 1280, "height": 820}


def save(png: bytes, name: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with Image.open(io.BytesIO(png)) as im:
        im.convert("RGB").quantize(colors=128).save(OUT / name, optimize=True)
    print(OUT / name, (OUT / name).stat().st_size)


def main() -> int:
    with BrowserSession(viewport=SIZE) as b:
        page = b.page
        with AppServer(viewer_app([RUNS / "teacher", RUNS / "perturbed"])) as srv:
            page.goto(f"{srv.url}/run/1/rollout/miniwob/click-checkboxes/101@0")
            page.wait_for_load_state("networkidle")
            save(page.screenshot(), "viewer-rollout.png")
        with tempfile.TemporaryDirectory() as tmp:
            study = Path(tmp) / "study.sqlite"
            settings = load_settings(pairs=3, anchors=1, raters=2, seed=7)
            create_study(RUNS / "perturbed", RUNS / "teacher", study, settings)
            con = sqlite3.connect(study)
            pos = con.execute(
                "SELECT a.position FROM assignments a JOIN pairs p USING (pair_id) "
                "WHERE a.slot = 1 AND p.contract_id = 'miniwob/click-checkboxes/101'"
            ).fetchone()[0]
            con.close()
            with AppServer(audit_app(study)) as srv:
                page.goto(srv.url)
                page.fill("#name", "Ada")
                page.click("button[type=submit]")
                page.goto(f"{srv.url}/pair/{pos}")
                page.keyboard.press("j")
                for key in "yyn":
                    page.keyboard.press(key)
                    page.wait_for_timeout(150)
                page.wait_for_load_state("networkidle")
                page.evaluate("window.scrollTo(0, 180)")
                save(page.screenshot(), "audit-pair.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
