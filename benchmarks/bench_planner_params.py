"""Which CP-SAT parameters the ladder runs with: KnowPlan, DegreeMap "Exact planning" on
synthetic catalogs of 300, 1,000 and 3,000 courses, every setting on the same requests,
interleaved request by request (benchmarks/harness.side_by_side).

    .venv/bin/python -m benchmarks.bench_planner_params [--sizes 300 1000 3000] [--pairs 20]

Settings: search workers (1 or 2; the machine has two cores), interleaved search (the
deterministic way to run two workers), and the LP's linearization level (0, 1, 2). Writes
benchmarks/results/planner_params.{json,md}; planner/config/solver.yaml takes the winner.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from benchmarks.harness import parse, side_by_side, spread, write_results
from planner.hypergraph import compile_graph
from planner.solve import solve_ladder
from planner.solver_config import SolverConfig
from planner.synth import make_catalog, make_profiles

SETTINGS: dict[str, dict[str, Any]] = {
    "1 worker, linearization 2": {"workers": 1, "cp_sat": {"linearization_level": 2}},
    "1 worker, linearization 1": {"workers": 1, "cp_sat": {"linearization_level": 1}},
    "1 worker, linearization 0": {"workers": 1, "cp_sat": {"linearization_level": 0}},
    "2 workers, linearization 2": {"workers": 2, "cp_sat": {"linearization_level": 2}},
    "2 workers interleaved, linearization 2": {
        "workers": 2,
        "cp_sat": {"linearization_level": 2, "interleave_search": True},
    },
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[300, 1000, 3000])
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = parse(ap, "planner_params")
    sizes: dict[int, Any] = {}
    for n in args.sizes:
        docs = make_catalog(args.seed, n)
        graph = compile_graph(docs)
        reqs = make_profiles(docs, args.pairs, args.seed)
        cfgs = {name: SolverConfig.load(top_k=1, **s) for name, s in SETTINGS.items()}

        def arm(cfg: SolverConfig, graph: Any = graph, reqs: list = reqs) -> Any:
            def run(r: int) -> dict[str, Any]:
                t0 = time.monotonic()
                report: dict[str, Any] = {}
                status, plan = solve_ladder(graph, reqs[r], cfg, report=report)
                return {
                    "status": status,
                    "certified": bool(plan and plan.certified),
                    "wall_s": time.monotonic() - t0,
                    "deterministic_s": report["deterministic_s"],
                }

            return run

        out = side_by_side({name: arm(cfg) for name, cfg in cfgs.items()}, args.pairs)
        sizes[n] = {
            name: {
                "certified": sum(o["certified"] for o in res["outputs"]),
                "infeasible": sum(o["status"] == "infeasible" for o in res["outputs"]),
                "wall_s": res["seconds"],
                "deterministic_s": spread([o["deterministic_s"] for o in res["outputs"]]),
                "total_deterministic_s": round(
                    sum(o["deterministic_s"] for o in res["outputs"]), 3
                ),
            }
            for name, res in out.items()
        }
    write_results("planner_params", {"settings": SETTINGS, "sizes": sizes}, render(sizes),
                  overwrite=args.overwrite, results=args.results)  # fmt: skip


def render(sizes: dict[int, Any]) -> str:
    lines = [
        "# Planner CP-SAT parameters",
        "",
        "The ladder (top-1) on the same synthetic requests under each setting, interleaved "
        "request by request. Deterministic seconds: CP-SAT's work measure; wall: this "
        "machine.",
        "",
        "| courses | setting | certified | infeasible | median wall s | p95 wall s "
        "| median det. s | p95 det. s | total det. s |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for n, rows in sizes.items():
        for name, s in rows.items():
            lines.append(
                f"| {n} | {name} | {s['certified']} | {s['infeasible']} | "
                f"{s['wall_s']['median']:.3f} | {s['wall_s']['p95']:.3f} | "
                f"{s['deterministic_s']['median']:.3f} | {s['deterministic_s']['p95']:.3f} | "
                f"{s['total_deterministic_s']} |"
            )
    best = {n: min(rows, key=lambda k: rows[k]["wall_s"]["median"]) for n, rows in sizes.items()}
    lines += [
        "",
        "Fastest median wall per size: " + "; ".join(f"{n}: {b}" for n, b in best.items()),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
