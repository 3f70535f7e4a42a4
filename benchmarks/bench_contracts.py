"""Teacher (deterministic contract top + heuristic middle) on the held-out contract-site contracts.

Generates the world (seed 20260614) into runs/contract-sites if missing, runs the test split's
contracts resumably in runs/bench-contracts/teacher (rerun to resume), and writes
benchmarks/results/contracts_teacher.md + .json: CGS and every gate, the All / Unblocked / Clean
denominators, Table 14's counterfactual statistics, time per rollout.
Run: .venv/bin/python benchmarks/bench_contracts.py [--split test] [--workers 2]
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import time
from pathlib import Path

from agent_runtime.runner.batch import run_batch
from agent_runtime.runner.config import RunConfig
from agent_runtime.runner.factories import resources_for
from common.outputs import write_json
from contracts.intent import load_contracts
from evals.contracts.bench import score_run
from evals.contracts.report import render

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--split", default="test", choices=["train", "dev", "test", "all"])
    ap.add_argument("--data", type=Path, default=ROOT / "runs" / "contract-sites")
    ap.add_argument("--run", type=Path, default=ROOT / "runs" / "bench-contracts" / "teacher")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--name", default="contracts_teacher")
    args = ap.parse_args()
    if not (args.data / "world.json").exists():
        subprocess.run(
            [sys.executable, "-m", "pathwise.cli", "sites", "generate", "--out", str(args.data)],
            check=True,
        )
    contracts = load_contracts(args.data / "contracts" / f"{args.split}.jsonl")
    cfg = RunConfig(workers=args.workers, screenshots=False)
    t0 = time.perf_counter()
    run_batch(contracts, args.run, cfg, resources=resources_for(cfg, contracts))
    wall = time.perf_counter() - t0
    results = {
        "benchmark": args.name,
        "policy": "teacher (contract top + heuristic middle)",
        "contracts": f"{args.split} split ({len(contracts)} contracts)",
        "run": str(args.run.relative_to(ROOT)) if args.run.is_relative_to(ROOT) else str(args.run),
        "workers": args.workers,
        "step_cap": cfg.step_cap,
        "machine": f"{platform.system()} {platform.machine()} Python {platform.python_version()}, "
        "2 CPU cores shared with other engineers",
        "wall_s_this_call": round(wall, 1),
        **score_run(args.run, contracts),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    write_json(RESULTS / f"{args.name}.json", results)
    (RESULTS / f"{args.name}.md").write_text(render(results), encoding="utf-8")
    print((RESULTS / f"{args.name}.md").read_text())


if __name__ == "__main__":
    main()
