"""Study creation from real runs, blinding, sign-in slots, label isolation, loopback binding."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from envs.webapp import AppServer
from evals.audit.app import create_app
from pathwise.cli import app as cli
from tests.helpers.viewer_runs import FIXTURE

ARMS = [str(FIXTURE / "perturbed"), str(FIXTURE / "teacher")]


def create(out: Path, *extra: str) -> object:
    args = ["audit", "create", "--arms", *ARMS, "--out", str(out)]
    return CliRunner().invoke(cli, [*args, "--pairs", "3", "--anchors", "1", *extra])


@pytest.fixture
def study(tmp_path: Path) -> Path:
    out = tmp_path / "study.sqlite"
    r = create(out, "--raters", "2", "--seed", "7")
    assert r.exit_code == 0, r.output
    assert "3 pairs (1 anchor) of 3 shared contracts, 2 raters, 15 steps, 15 screenshots" in (
        r.output
    )
    return out


def test_create_refuses_overwrite_and_impossible_designs(study: Path, tmp_path: Path) -> None:
    before = study.read_bytes()
    again = create(study, "--raters", "2")
    assert again.exit_code == 2 and "never overwritten" in again.output
    assert study.read_bytes() == before
    big = CliRunner().invoke(
        cli, ["audit", "create", "--arms", *ARMS, "--out", str(tmp_path / "x"), "--pairs", "9"]
    )
    assert big.exit_code == 2 and "anchors (20) cannot exceed pairs (9)" in big.output
    big = CliRunner().invoke(
        cli,
        [
            "audit",
            "create",
            "--arms",
            *ARMS,
            "--out",
            str(tmp_path / "x"),
            "--pairs",
            "9",
            "--anchors",
            "1",
        ],
    )
    assert big.exit_code == 2 and "than the 3 contracts both arms finished" in big.output
    assert not (tmp_path / "x").exists()
    gone = create(tmp_path / "y", "--raters", "2")
    assert gone.exit_code == 0
    missing = CliRunner().invoke(
        cli, ["audit", "create", "--arms", ARMS[0], str(tmp_path / "nope"), "--out", "z"]
    )
    assert missing.exit_code == 2 and "no such run folder" in missing.output


def test_the_study_holds_what_raters_see_and_keeps_arms_apart(study: Path) -> None:
    con = sqlite3.connect(study)
    kinds = [r[0] for r in con.execute("SELECT kind FROM pairs ORDER BY pair_id")]
    assert kinds == ["anchor", "coverage", "coverage"]
    per_slot = dict(con.execute("SELECT slot, COUNT(*) FROM assignments GROUP BY slot"))
    assert per_slot == {1: 3, 2: 3}  # two raters: everyone gets every pair
    sides = dict(con.execute("SELECT slot, SUM(a_left) FROM assignments GROUP BY slot"))
    assert all(v in (1, 2) for v in sides.values())  # balanced within each queue of 3
    displays = " ".join(r[0] for r in con.execute("SELECT display_json FROM steps"))
    for hidden in ("perturbed", "teacher", "heuristic", "parsed", "middle"):
        assert hidden not in displays
    con.close()


def test_raters_sign_in_label_their_own_queue_and_stay_apart(study: Path) -> None:
    with AppServer(create_app(study)) as server:
        ada = httpx.Client(base_url=server.url, follow_redirects=True, timeout=30)
        bob = httpx.Client(base_url=server.url, follow_redirects=True, timeout=30)
        eve = httpx.Client(base_url=server.url, follow_redirects=True, timeout=30)
        assert ada.post("/api/pair/1/choice", json={"shown": "left"}).status_code == 401
        page = ada.post("/signin", data={"name": "Ada"})
        assert page.url.path == "/pair/1" and "Pair 1 of 3" in page.text
        for hidden in ("perturbed", "teacher", "heuristic", "@0", str(FIXTURE)):
            assert hidden not in page.text
        bob.post("/signin", data={"name": "Bob"})
        full = eve.post("/signin", data={"name": "Eve"})
        assert "all 2 rater places in this study are taken" in full.text

        # Ada labels the anchor (pair 1 of the study is in both queues).
        con = sqlite3.connect(study)
        pos = dict(con.execute("SELECT slot, position FROM assignments WHERE pair_id = 1"))
        a_left = dict(con.execute("SELECT slot, a_left FROM assignments WHERE pair_id = 1"))
        r = ada.post(f"/api/pair/{pos[1]}/step", json={"side": "left", "step": 0, "label": "no"})
        assert r.json()["ok"] is True and r.json()["complete"] is False
        ada.post(f"/api/pair/{pos[1]}/choice", json={"shown": "left"})
        choice = con.execute("SELECT choice, shown FROM pair_labels WHERE slot = 1").fetchone()
        assert choice == ("A" if a_left[1] else "B", "left")
        bad = ada.post(f"/api/pair/{pos[1]}/step", json={"side": "left", "step": 99, "label": "no"})
        assert bad.status_code == 400 and "no step 99" in bad.json()["error"]
        assert ada.post("/api/pair/9/choice", json={"shown": "left"}).status_code == 400

        ada_page = ada.get(f"/pair/{pos[1]}").text
        bob_page = bob.get(f"/pair/{pos[2]}").text
        assert ada_page.count('aria-pressed="true"') == 2
        assert bob_page.count('aria-pressed="true"') == 0  # Bob never sees Ada's labels
        img = bob.get(f"/pair/{pos[2]}/img/right/0")
        assert img.headers["content-type"] == "image/png"
        assert httpx.get(f"{server.url}/pair/1/img/right/0").status_code == 401

        again = httpx.Client(base_url=server.url, follow_redirects=True, timeout=30)
        assert again.post("/signin", data={"name": " Ada "}).url.path == "/pair/1"
        con.close()


def _listening(port: int) -> set[str]:
    """Local addresses a TCP socket on `port` listens on (from /proc/net/tcp and tcp6)."""
    found = set()
    for name in ("tcp", "tcp6"):
        path = Path("/proc/net") / name
        if path.exists():
            for line in path.read_text().splitlines()[1:]:
                cols = line.split()
                addr, hexport = cols[1].split(":")
                if cols[3] == "0A" and int(hexport, 16) == port:
                    found.add(addr)
    return found


def test_view_and_audit_serve_bind_127_0_0_1_only(study: Path) -> None:
    cmds = {
        "trace viewer": ["view", str(FIXTURE / "teacher")],
        "audit for": ["audit", "serve", str(study)],
    }
    procs = {
        k: subprocess.Popen(
            [sys.executable, "-m", "pathwise.cli", *args], stdout=subprocess.PIPE, text=True
        )
        for k, args in cmds.items()
    }
    try:
        for label, proc in procs.items():
            line = proc.stdout.readline() if proc.stdout else ""
            m = re.search(r"on http://127\.0\.0\.1:(\d+)", line)
            assert line.startswith(label) and m, line
            port = int(m.group(1))
            assert httpx.get(f"http://127.0.0.1:{port}/", timeout=30).status_code == 200
            assert _listening(port) == {"0100007F"}  # 127.0.0.1 and no other interface
    finally:
        for proc in procs.values():
            proc.terminate()
            proc.wait(timeout=20)


def test_gate_labels_are_asked_for_when_the_study_collects_them(tmp_path: Path) -> None:
    study = tmp_path / "gates.sqlite"
    r = create(study, "--raters", "2", "--gate-labels")
    assert r.exit_code == 0, r.output
    with AppServer(create_app(study)) as server:
        c = httpx.Client(base_url=server.url, follow_redirects=True, timeout=30)
        page = c.post("/signin", data={"name": "Cy"})
        assert page.text.count('data-kind="gate"') == 2 * 5 * 3  # two sides, five gates
        steps = {
            s: len(re.findall(rf'class="astep" data-side="{s}"', page.text))
            for s in ("left", "right")
        }
        for side, n in steps.items():
            for i in range(n):
                c.post("/api/pair/1/step", json={"side": side, "step": i, "label": "yes"})
        last = c.post("/api/pair/1/choice", json={"shown": "tie"}).json()
        assert last["complete"] is False  # the gates are still open
        bad = c.post("/api/pair/1/gate", json={"side": "left", "gate": "vibes", "label": "yes"})
        assert bad.status_code == 400
        for side in ("left", "right"):
            for g in ("terminal", "hard", "evidence", "answer", "blocker"):
                last = c.post("/api/pair/1/gate", json={"side": side, "gate": g, "label": "yes"})
        assert last.json()["complete"] is True
