"""The report on a hand-made study database against numbers computed by hand.

Seven pairs, three raters; pair 1 is the shared anchor (all three), the rest have two raters.
Step labels per rater are chosen so each rollout's aggregated PCS is known (see PLAN), pair
preferences give (A, B, tie, neither, CJ) = (3, 1, 1, 1, 1), and pairs 1-2 carry automatic gates
and human gate labels for the Table 32 rows.
"""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contracts.step_row import ContractRef, Gates, RolloutOutcome
from evals.audit.report import build_report
from evals.audit.store import GATES, StepDisplay, write_schema
from pathwise.cli import app as cli

Y, N, C = "yes", "no", "cj"
# pair: (kind, raters, A steps, B steps, preference per rater as arm labels).
# Each step lists one label per rater, in rater order. Aggregated PCS in the comments.
PLAN = {
    1: ("anchor", [1, 2, 3], [[Y, Y, Y], [Y, N, Y], [N, N, Y], [Y, C, N]],  # A 2/3, 1 CJ
        [[N, N, N], [Y, N, N]], ["A", "A", "B"]),  # B 0/2 -> d = +2/3; pref A
    2: ("coverage", [1, 2], [[Y, Y], [Y, Y]], [[Y, Y], [N, N]], ["A", "A"]),  # 1 vs 1/2: +1/2
    3: ("coverage", [2, 3], [[Y, Y], [Y, Y], [Y, Y], [N, N]], [[Y, Y]], ["B", "B"]),  # -1/4
    4: ("coverage", [1, 3], [[Y, Y]], [[N, N], [N, C]], ["A", C]),  # 1 vs 0: +1
    5: ("coverage", [1, 2], [[Y, Y]] * 3 + [[N, N]] * 2, [[Y, Y]] * 2 + [[N, N]] * 3,
        ["neither", "neither"]),  # 3/5 vs 2/5: +1/5
    6: ("coverage", [2, 3], [[Y, Y], [N, Y]], [[C, C]], [C, C]),  # 1/1 vs CJ: no difference
    7: ("coverage", [1, 3], [[Y, Y]], [[Y, Y]], ["tie", "tie"]),  # 1 vs 1: zero difference
}  # fmt: skip
AUTO_GATES = {
    (1, "A"): Gates(terminal=True, hard=True, evidence=True, answer=True, blocker=True),
    (1, "B"): Gates(terminal=True, hard=False, evidence=True, answer=True, blocker=True),
    (2, "A"): Gates(terminal=True, hard=True, evidence=True, answer=True, blocker=True),
    (2, "B"): Gates(terminal=True, hard=True, evidence=True, answer=True, blocker=True),
}
# Human gate labels: every rater says yes, except on pair 1 A where two of three say the
# evidence gate fails.
HUMAN_NO = {(1, "A", "evidence"): [N, N, Y]}


def make_study(path: Path) -> None:
    con = sqlite3.connect(path)
    write_schema(
        con,
        {
            "settings": {"confidence": 0.95, "low_pcs": 0.5, "raters": 3, "pairs": 7},
            "arms": {"A": {"name": "cand", "path": "/a"}, "B": {"name": "ref", "path": "/b"}},
            "gate_labels": True,
        },
    )
    con.executemany(
        "INSERT INTO slots (slot, rater) VALUES (?, ?)", [(1, "r1"), (2, "r2"), (3, "r3")]
    )
    key = 0
    position = dict.fromkeys((1, 2, 3), 0)
    for pid, (kind, raters, a_steps, b_steps, prefs) in PLAN.items():
        con.execute(
            "INSERT INTO pairs VALUES (?, ?, ?, ?)", (pid, f"c{pid}", kind, '{"contract_id": "x"}')
        )
        for r, pref in zip(raters, prefs, strict=True):
            position[r] += 1
            con.execute("INSERT INTO assignments VALUES (?, ?, ?, ?)", (r, pid, position[r], 1))
            shown = {"A": "left", "B": "right"}.get(pref, pref)
            con.execute("INSERT INTO pair_labels VALUES (?, ?, ?, ?, 't')", (r, pid, pref, shown))
        for arm, steps in (("A", a_steps), ("B", b_steps)):
            key += 1
            ref = ContractRef(contract_id=f"c{pid}", base_task_id=f"c{pid}", sha256="0" * 64)
            gates = AUTO_GATES.get((pid, arm))
            out = RolloutOutcome(rollout_id=f"c{pid}@0", contract=ref, gates=gates)
            con.execute(
                "INSERT INTO rollouts VALUES (?, ?, ?, ?, ?, ?)",
                (key, pid, arm, f"c{pid}@0", len(steps), out.model_dump_json()),
            )
            for i, labels in enumerate(steps):
                con.execute(
                    "INSERT INTO steps VALUES (?, ?, ?, NULL)",
                    (key, i, StepDisplay(index=i).model_dump_json()),
                )
                for r, lab in zip(raters, labels, strict=True):
                    con.execute(
                        "INSERT INTO step_labels VALUES (?, ?, ?, ?, 't')", (r, key, i, lab)
                    )
            if gates is not None:
                for g in GATES:
                    labels = HUMAN_NO.get((pid, arm, g), [Y] * len(raters))
                    for r, lab in zip(raters, labels, strict=True):
                        con.execute(
                            "INSERT INTO gate_labels VALUES (?, ?, ?, ?, 't')", (r, key, g, lab)
                        )
    con.commit()
    con.close()


def wilson_by_hand(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.fixture
def report(tmp_path: Path) -> dict:
    make_study(tmp_path / "hand.sqlite")
    return build_report(tmp_path / "hand.sqlite")


def test_pcs_per_rollout_and_pooled_with_wilson(report: dict) -> None:
    pcs = {p["pair_id"]: (p["A"]["pcs"], p["B"]["pcs"]) for p in report["pairs"]}
    assert pcs == {
        1: (pytest.approx(2 / 3), 0.0),
        2: (1.0, 0.5),
        3: (0.75, 1.0),
        4: (1.0, 0.0),
        5: (0.6, 0.4),
        6: (1.0, None),
        7: (1.0, 1.0),
    }
    a, b = report["pcs"]["A"], report["pcs"]["B"]
    assert (a["k"], a["n"], a["cj_steps"], a["cj_rollouts"]) == (13, 17, 2, 0)
    assert (b["k"], b["n"], b["cj_steps"], b["cj_rollouts"]) == (5, 13, 1, 1)
    assert a["ci"] == pytest.approx(wilson_by_hand(13, 17), abs=1e-9)
    assert b["ci"] == pytest.approx(wilson_by_hand(5, 13), abs=1e-9)
    assert report["pcs"]["delta_pp"] == pytest.approx(100 * (13 / 17 - 5 / 13))


def test_wilcoxon_on_rollout_level_differences(report: dict) -> None:
    w = report["pcs"]["wilcoxon"]
    # d = +2/3, +1/2, -1/4, +1, +1/5, 0 (pair 6 has a CJ side). The zero is dropped; ranks of
    # |d|: 1/5->1, 1/4->2, 1/2->3, 2/3->4, 1->5; W- = 2. Exact two-sided p = 2 * #{rank sets
    # summing to <= 2: {}, {1}, {2}} / 2^5 = 6/32.
    assert (w["n"], w["zeros_dropped"], w["statistic"]) == (6, 1, 2.0)
    assert w["p_value"] == pytest.approx(6 / 32)


def test_hcp_net_decisive_rate_and_sign_test(report: dict) -> None:
    h = report["hcp"]
    assert (h["A"], h["B"], h["tie"], h["neither"], h["cj"], h["N"]) == (3, 1, 1, 1, 1, 6)
    assert h["net"] == pytest.approx((3 - 1) / 6)  # ties and neither stay in the denominator
    assert h["decisive_a"]["rate"] == 0.75
    assert h["decisive_a"]["ci"] == pytest.approx(wilson_by_hand(3, 4), abs=1e-9)
    # Exact sign test over 4 decisive pairs: 2 * (C(4,0) + C(4,1)) / 2^4.
    assert h["sign_test_p"] == pytest.approx(10 / 16)


def test_kappa_on_the_anchor(report: dict) -> None:
    ag = report["agreement"]
    # Six anchor steps by three raters. Per-item agreement 1, 1/3, 1/3, 0, 1, 1/3 -> 1/2;
    # category shares yes 8/18, no 9/18, cj 1/18 -> Pe = 146/324; kappa = 16/178.
    assert (ag["raters"], ag["pcs_steps"]) == (3, 6)
    assert ag["kappa_pcs"] == pytest.approx(16 / 178)
    # One anchor pair rated A, A, B: P = 1/3, Pe = 5/9 -> kappa = -1/2.
    assert ag["hcp_pairs"] == 1 and ag["kappa_hcp"] == pytest.approx(-0.5)


def test_gate_agreement_in_table_32_shape(report: dict) -> None:
    rows = report["gates"]["rows"]
    assert rows["terminal"] == {"n": 4, "accuracy": 1.0, "kappa": None, "false_positive": 0.0}
    assert rows["hard"]["accuracy"] == 0.75 and rows["hard"]["false_positive"] == 0.0
    assert rows["hard"]["kappa"] == pytest.approx(0.0)
    assert rows["evidence"]["accuracy"] == 0.75 and rows["evidence"]["false_positive"] == 0.25
    # CGS: automatic (pass, fail, pass, pass) vs human (fail, pass, pass, pass):
    # po = 1/2, pe = 3/4*3/4 + 1/4*1/4 = 5/8 -> kappa = -1/3.
    cgs = rows["cgs"]
    assert (cgs["n"], cgs["accuracy"], cgs["false_positive"]) == (4, 0.5, 0.25)
    assert cgs["kappa"] == pytest.approx(-1 / 3)
    ov = report["overlap"]
    # PCS (2/3, 0, 1, 1/2) vs CGS (1, 0, 1, 1): Spearman on ranks = 3 / sqrt(15).
    assert ov["n"] == 4 and ov["spearman_rho"] == pytest.approx(3 / math.sqrt(15))
    assert (ov["cgs_passes"], ov["low_pcs_cgs_passes"]) == (3, 0)


def test_report_command_writes_a_new_folder_once(tmp_path: Path) -> None:
    make_study(tmp_path / "hand.sqlite")
    out = tmp_path / "rep"
    r = CliRunner().invoke(
        cli, ["audit", "report", str(tmp_path / "hand.sqlite"), "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    md = (out / "report.md").read_text()
    assert "| Persona consistency | 7 pairs | 13/17 | 5/13 |" in md
    assert "| Human comfort | 6 pairs | 3 prefer | 1 prefer | +33.3 pp |" in md
    assert (out / "report.json").exists()
    again = CliRunner().invoke(
        cli, ["audit", "report", str(tmp_path / "hand.sqlite"), "--out", str(out)]
    )
    assert again.exit_code == 2 and "never overwritten" in again.output
    missing = CliRunner().invoke(cli, ["audit", "report", str(tmp_path / "nope.sqlite")])
    assert missing.exit_code == 2 and "no such study database" in missing.output
