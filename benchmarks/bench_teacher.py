"""Scripted-teacher success per claimed MiniWoB++ task (20 seeds each, seeds 100-119).

Writes benchmarks/results/teacher.json and teacher.md. Success is the page's own raw
reward of 1. Run: .venv/bin/python benchmarks/bench_teacher.py [--tasks a,b] [--seeds 100-119]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from agent_runtime.runner.miniwob_batch import run_miniwob
from envs.miniwob.contracts import parse_seeds
from envs.miniwob.tasks import CLAIMED_TASKS, NOT_CLAIMED, claimed_tasks

RESULTS = Path(__file__).parent / "results"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--tasks", default=None, help="comma-separated (default: claimed list + not-claimed)"
    )
    ap.add_argument("--seeds", default="100-119")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    tasks = args.tasks.split(",") if args.tasks else [*claimed_tasks(), *NOT_CLAIMED]
    seeds = parse_seeds(args.seeds)
    t0 = time.perf_counter()
    results = run_miniwob(tasks, seeds)
    wall = time.perf_counter() - t0
    rows = {}
    for task, eps in results.items():
        k = sum(r.success for r in eps)
        rows[task] = {
            "episodes": len(eps),
            "successes": k,
            "rate": k / len(eps),
            "claimed": task in CLAIMED_TASKS,
            "mean_steps": sum(r.steps for r in eps) / len(eps),
            "mean_episode_s": sum(r.duration_s for r in eps) / len(eps),
            "failed_seeds": [r.seed for r in eps if not r.success],
        }
    claimed = {t: r for t, r in rows.items() if r["claimed"]}
    doc = {
        "benchmark": "teacher_miniwob",
        "policy": "teacher (rule top + heuristic middle)",
        "seeds": args.seeds,
        "machine": f"{platform.system()} {platform.machine()} Python {platform.python_version()}",
        "wall_s": round(wall, 1),
        "claimed_tasks": len(claimed),
        "claimed_at_95": sum(r["rate"] >= 0.95 for r in claimed.values()),
        "claimed_episodes": sum(r["episodes"] for r in claimed.values()),
        "claimed_successes": sum(r["successes"] for r in claimed.values()),
        "tasks": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "teacher.json").write_text(json.dumps(doc, indent=2) + "\n")
    lines = [
        "# Scripted teacher on MiniWoB++",
        "",
        f"Policy: rule top + heuristic middle. Seeds {args.seeds} per task; success = the page's",
        f"raw reward of 1. Claimed tasks at >= 95%: {doc['claimed_at_95']}/{doc['claimed_tasks']};",
        f"claimed episodes solved: {doc['claimed_successes']}/{doc['claimed_episodes']}. "
        f"Wall time {doc['wall_s']} s ({doc['machine']}).",
        "",
        "| task | claimed | successes / episodes | rate | mean steps | mean s/episode |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for t, r in rows.items():
        lines.append(
            f"| {t} | {'yes' if r['claimed'] else 'no'} | {r['successes']}/{r['episodes']} "
            f"| {100 * r['rate']:.0f}% | {r['mean_steps']:.1f} | {r['mean_episode_s']:.2f} |"
        )
    (args.out / "teacher.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
