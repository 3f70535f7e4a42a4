"""Which CP-SAT parameters the ladder runs with: KnowPlan, DegreeMap "Exact planning" on
synthetic catalogs of 300, 1,000 and 3,000 courses, every setting on the same requests,
interleaved request by request (benchmarks/harness.side_by_side).

    .venv/bin/python -m benchmarks.bench_planner_params [--sizes 300 1000] [--pairs 20]
        [--few 5] [--two-worker-sizes 300] [--stolaf data/catalogs/stolaf]

Settings: search workers (1 or 2; the machine has two cores), interleaved search (the
deterministic way to run two workers), the LP's linearization level (0, 1, 2), and presolve
probing (CP-SAT's default level 2, or 0: the ladder solves many small models, each one
presolved), and whether the LP takes every linear constraint up front or adds them lazily as
they are violated (CP-SAT's default). `--stolaf` runs the full settings on St. Olaf's 39
(program, profile) pairs too, the real catalog KnowPlan's median aim is measured on. Writes
benchmarks/results/planner_params.{json,md}; planner/config/solver.yaml takes the winner.

Kept to a few minutes on a shared 2-core machine (the full grid at 60 s budgets ran past 9
minutes and was stopped): the three one-worker linearization-2 settings, the ones chosen
between, run every request at every size; the others run only the first `--few` requests,
side by side with the first setting on the same ones, and the two-worker settings only at
`--two-worker-sizes` (a second worker competes for the same two cores with other work). Each
ladder solve gets `--budget` deterministic seconds (default 10; the ladder's median is under
1 s at these sizes), so a setting that cannot prove a stage stops there instead of spending
a minute per request.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.harness import parse, side_by_side, spread, write_results
from planner.bench_stolaf import stolaf_pairs
from planner.documents import load_docs
from planner.hypergraph import Hypergraph, compile_graph
from planner.profile import Request
from planner.solve import solve_ladder
from planner.solver_config import SolverConfig
from planner.synth import make_catalog, make_profiles

SETTINGS: dict[str, dict[str, Any]] = {
    "1 worker, linearization 2, probing 0": {
        "workers": 1,
        "cp_sat": {"linearization_level": 2, "cp_model_probing_level": 0},
    },
    "1 worker, linearization 2, probing 0, LP up front": {
        "workers": 1,
        "cp_sat": {
            "linearization_level": 2,
            "cp_model_probing_level": 0,
            "add_lp_constraints_lazily": False,
        },
    },
    "1 worker, linearization 2": {"workers": 1, "cp_sat": {"linearization_level": 2}},
}
# Run on the first `--few` requests only (module docstring).
FEW: dict[str, dict[str, Any]] = {
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
    ap.add_argument("--sizes", type=int, nargs="+", default=[300, 1000])
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--few", type=int, default=5, help="requests for the other settings")
    ap.add_argument("--budget", type=float, default=10.0, help="deterministic s per solve")
    ap.add_argument(
        "--two-worker-sizes",
        type=int,
        nargs="*",
        default=[300],
        help="catalog sizes the two-worker settings run at",
    )
    ap.add_argument("--stolaf", type=Path, help="St. Olaf documents: run the full settings there")
    args = parse(ap, "planner_params")
    every = {**SETTINGS, **FEW}
    cfgs = {k: SolverConfig.load(top_k=1, time_budget_s=args.budget, **every[k]) for k in every}
    sizes: dict[Any, Any] = {}
    for n in args.sizes:
        docs = make_catalog(args.seed, n)
        graph = compile_graph(docs)
        reqs = make_profiles(docs, args.pairs, args.seed)
        out = side_by_side({name: _arm(cfgs[name], graph, reqs) for name in SETTINGS}, args.pairs)
        few = [f for f in FEW if FEW[f]["workers"] == 1 or n in args.two_worker_sizes]
        k = min(args.few, args.pairs)
        first = next(iter(SETTINGS))
        arms = {f"{first} (first {k})": _arm(cfgs[first], graph, reqs)}
        out |= side_by_side(arms | {f: _arm(cfgs[f], graph, reqs) for f in few}, k)
        sizes[n] = _rows(out)
    if args.stolaf:
        graph = compile_graph(load_docs(args.stolaf))
        reqs = [r for _, _, r in stolaf_pairs(graph)]
        arms = {name: _arm(cfgs[name], graph, reqs) for name in SETTINGS}
        sizes["St. Olaf"] = _rows(side_by_side(arms, len(reqs)))
    data = {"settings": {**SETTINGS, **FEW}, "budget_s": args.budget, "sizes": sizes}
    write_results("planner_params", data, render(sizes, args.budget),
                  overwrite=args.overwrite, results=args.results)  # fmt: skip


def _arm(cfg: SolverConfig, graph: Hypergraph, reqs: list[Request]) -> Callable[[int], Any]:
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


def _rows(out: dict[str, Any]) -> dict[str, Any]:
    """Per setting: requests, certified, proven infeasible, wall and deterministic seconds."""
    return {
        name: {
            "requests": len(res["outputs"]),
            "certified": sum(o["certified"] for o in res["outputs"]),
            "infeasible": sum(o["status"] == "infeasible" for o in res["outputs"]),
            "wall_s": res["seconds"],
            # Over the requests with a certified plan: St. Olaf's infeasible pairs are
            # proven in a fraction of a second and would pull the median down.
            "feasible_wall_s": spread(
                [o["wall_s"] for o in res["outputs"] if o["certified"]] or [0.0]
            ),
            "deterministic_s": spread([o["deterministic_s"] for o in res["outputs"]]),
            "total_deterministic_s": round(sum(o["deterministic_s"] for o in res["outputs"]), 3),
        }
        for name, res in out.items()
    }


def render(sizes: dict[Any, Any], budget: float) -> str:
    lines = [
        "# Planner CP-SAT parameters",
        "",
        "The ladder (top-1) on the same synthetic requests under each setting, interleaved "
        f"request by request, {budget:g} deterministic seconds per solve. Rows with fewer "
        "requests ran only the first ones, beside the first setting on the same ones. "
        "Deterministic seconds: CP-SAT's work measure; wall: this machine.",
        "",
        "| courses | setting | requests | certified | infeasible | median wall s | p95 wall s "
        "| certified: median wall s | median det. s | p95 det. s | total det. s |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for n, rows in sizes.items():
        for name, s in rows.items():
            lines.append(
                f"| {n} | {name} | {s['requests']} | {s['certified']} | {s['infeasible']} | "
                f"{s['wall_s']['median']:.3f} | {s['wall_s']['p95']:.3f} | "
                f"{s['feasible_wall_s']['median']:.3f} | "
                f"{s['deterministic_s']['median']:.3f} | {s['deterministic_s']['p95']:.3f} | "
                f"{s['total_deterministic_s']} |"
            )
    # Among the settings run on every request (the two-worker rows see only the first few).
    full = {
        n: {
            k: r
            for k, r in rows.items()
            if r["requests"] == max(x["requests"] for x in rows.values())
        }
        for n, rows in sizes.items()
    }
    best = {n: min(rows, key=lambda k: rows[k]["wall_s"]["median"]) for n, rows in full.items()}
    lines += [
        "",
        "Fastest median wall per size: " + "; ".join(f"{n}: {b}" for n, b in best.items()),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
