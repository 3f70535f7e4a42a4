"""One arm of benchmarks/bench_planner_scaling.py: the ladder (or the single weighted sum) of
whichever `planner` package is first on the path, on one synthetic catalog, one JSON row per
request.

Run as a script, not a module, so that a checkout given in PYTHONPATH supplies `planner` (the
"before" arm runs the code of another worktree this way):

    PYTHONPATH=/tmp/planner-before python benchmarks/planner_arm.py --courses 1000 --pairs 20 \\
        --rows runs/bench-planner-scaling/before-c1000.jsonl

Every row: the solve's status and certification, verifier violations, wall and deterministic
seconds, and the size of the term-indexed model: the ladder's own report where it gives one,
else the one model the older ladder built (classes, course x term variables, constraints,
seconds to build). Rows already in the file are kept and skipped (resumable).
"""

from __future__ import annotations

import argparse
import json
import time
from inspect import signature
from pathlib import Path

from planner.hypergraph import compile_graph
from planner.model import Builder
from planner.solve import solve_ladder
from planner.solver_config import SolverConfig
from planner.synth import make_catalog, make_profiles
from planner.verify import Verifier


def _one_model(graph, req, cfg) -> dict:
    """The single model of a ladder that builds one (the code before issue 32)."""
    t0 = time.monotonic()
    enc = Builder(graph, req, cover_cuts=cfg.cover_cuts).build()
    return {
        "classes": len(enc.classes),
        "x": len(enc.x),
        "constraints": len(enc.model.Proto().constraints),
        "build_s": round(time.monotonic() - t0, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--courses", type=int, required=True)
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=None)
    ap.add_argument("--rows", type=Path, required=True)
    ap.add_argument("--method", choices=["ladder", "weighted_sum"], default="ladder")
    ap.add_argument(
        "--sizes-only",
        action="store_true",
        help="build each request's single model and record its size; solve nothing",
    )
    args = ap.parse_args()
    docs = make_catalog(args.seed, args.courses)
    graph, verifier = compile_graph(docs), Verifier(docs)
    cfg = SolverConfig.load(time_budget_s=args.budget, top_k=1)
    args.rows.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if args.rows.exists():
        done = {json.loads(line)["pair"] for line in args.rows.read_text().splitlines() if line}
    with args.rows.open("a") as sink:
        for i, req in enumerate(make_profiles(docs, args.pairs, args.seed)):
            if i in done:
                continue
            if args.sizes_only:
                row = {"pair": i, "program": req.program, "status": "not solved",
                       "certified": False, "stage": None, "violations": [], "wall_s": None,
                       "deterministic_s": None, "stage_values": {},
                       "model": _one_model(graph, req, cfg)}  # fmt: skip
                sink.write(json.dumps(row) + "\n")
                continue
            # The ladder of issue 32 reports what it built, with or without a plan.
            report: dict = {}
            kwargs = {"report": report} if "report" in signature(solve_ladder).parameters else {}
            if args.method == "weighted_sum":
                kwargs["stages"] = ["weighted"]
            t0 = time.monotonic()
            status, plan = solve_ladder(graph, req, cfg, **kwargs)
            wall = time.monotonic() - t0
            pairs = [(c.course, c.term) for c in plan.courses] if plan else []
            violations = sorted({v.kind for v in verifier.check(pairs, req)}) if plan else []
            model = report.get("model") or _one_model(graph, req, cfg)
            dtime = report.get("deterministic_s", plan.deterministic_s if plan else None)
            row = {
                "pair": i,
                "program": req.program,
                "status": status,
                "certified": bool(plan and plan.certified and not violations),
                "stage": plan.uncertified_stage if plan else None,
                "violations": violations,
                "wall_s": round(wall, 3),
                "deterministic_s": dtime,
                "stage_values": plan.stage_values if plan else {},
                "model": model,
            }
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
