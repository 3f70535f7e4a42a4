"""Planner benchmark: ladder vs weighted sum vs greedy; KnowPlan Tables 3 and 5 (DegreeMap)."""

from __future__ import annotations

import contextlib
import json
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any

from planner.confirm import confirm_infeasible
from planner.greedy import greedy_plan
from planner.hypergraph import Hypergraph, compile_graph
from planner.profile import Request
from planner.solve import solve_ladder
from planner.solver_config import SolverConfig
from planner.synth import make_catalog, make_profiles
from planner.utility import course_utility
from planner.verify import Verifier

METHODS = ("ladder", "weighted_sum", "greedy")


def _median_or_none(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 3) if xs else None


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def run_bench(
    pairs: int = 50,
    seed: int = 0,
    n_courses: int = 300,
    budget: float | None = None,
    progress: bool = False,
    rows_path: Path | None = None,
    methods: tuple[str, ...] = METHODS,
    explain: bool = False,
    label: str | None = None,
) -> dict[str, Any]:
    """Every method sees the same catalog, pairs, budget and verifier, in one run.

    With ``rows_path`` each finished pair is appended to a JSONL file, and a rerun with
    the same settings skips the pairs already there, so a long run survives interruption.
    Every infeasible verdict is checked by the unpruned model (planner/confirm.py); with
    ``explain`` the ladder's infeasible requests also get `pathwise plan`'s explanation.
    ``label`` names the progress bar.
    """
    docs = make_catalog(seed, n_courses)
    graph = compile_graph(docs)
    verifier = Verifier(docs)
    cfg = SolverConfig.load(time_budget_s=budget, top_k=1)
    profiles = make_profiles(docs, pairs, seed)
    key: dict[str, Any] = {"seed": seed, "courses": n_courses, "budget_s": cfg.time_budget_s}
    if methods != METHODS:
        key["methods"] = list(methods)
    if explain:
        key["explain"] = True
    rows, sink = _resume_rows(rows_path, key) if rows_path else ([], None)
    done = {r["pair"] for r in rows}
    it = [(i, req) for i, req in enumerate(profiles) if i not in done]
    if progress:
        from tqdm import tqdm

        it = tqdm(it, total=pairs, initial=len(done), desc=label)
    with sink if sink is not None else contextlib.nullcontext():
        for i, req in it:
            row = _bench_pair(graph, verifier, cfg, i, req, methods, explain)
            rows.append(row)
            if sink is not None:
                sink.write(json.dumps(row) + "\n")
                sink.flush()
    rows = sorted((r for r in rows if r["pair"] < pairs), key=lambda r: r["pair"])
    summary = {}
    for m in methods:
        rs = [r[m] for r in rows]
        ok = [r for r in rs if r["certified"]]
        summary[m] = {
            "pairs": len(rs),
            "certified": len(ok),
            **verdicts(rs),
            "median_s": round(statistics.median([r["seconds"] for r in rs]), 3) if rs else 0.0,
            "p95_s": round(_pct([r["seconds"] for r in rs], 0.95), 3),
            "median_deterministic_s": _median_or_none(
                [r["deterministic_s"] for r in rs if r.get("deterministic_s") is not None]
            ),
            "uncertified_stages": dict(
                Counter(r["stage"] for r in rs if r["stage"] and not r["certified"])
            ),
            "mean_utility": round(statistics.mean([r["utility"] for r in ok]), 4) if ok else None,
            "mean_horizon": round(statistics.mean([r["horizon"] for r in ok]), 3) if ok else None,
        }
        sizes = [r["model"][m] for r in rows if m in r.get("model", {})]
        if sizes:
            summary[m] |= {
                "median_x": statistics.median([z.get("x", 0) for z in sizes]),
                "max_x": max(z.get("x", 0) for z in sizes),
                "max_build_s": max(z.get("build_s", 0.0) for z in sizes),
            }
    both = [r for r in rows if all(r[m]["certified"] for m in methods)]
    paired = {
        m: round(statistics.mean([r[m]["utility"] for r in both]), 4) if both else None
        for m in methods
    }
    return {
        "config": {
            "pairs": pairs,
            "seed": seed,
            "courses": n_courses,
            "budget_s": cfg.time_budget_s,
            "workers": cfg.workers,
            "cp_sat": cfg.cp_sat,
            "stages": cfg.stages,
            "size_limit": cfg.size_limit,
        },
        "summary": summary,
        "paired_utility": {"pairs": len(both), **paired},
        "rows": rows,
    }


def verdicts(rs: list[dict[str, Any]]) -> dict[str, int]:
    """Counts of one method's rows by verdict: an infeasible verdict counts as infeasible only
    when the unpruned model confirmed it; unconfirmed (or refuted) it is undecided."""
    claimed = [r for r in rs if r["status"] == "infeasible"]
    confirmed = sum(r.get("confirmation", {}).get("status") == "confirmed" for r in claimed)
    certified = sum(r["certified"] for r in rs)
    return {
        "infeasible": confirmed,
        "infeasible_claimed": len(claimed),
        "refuted": sum(r.get("confirmation", {}).get("status") == "refuted" for r in claimed),
        "decided": certified + confirmed,
        "undecided": len(rs) - certified - confirmed,
    }


def _bench_pair(
    graph: Hypergraph,
    verifier: Verifier,
    cfg: SolverConfig,
    i: int,
    req: Request,
    methods: tuple[str, ...] = METHODS,
    explain: bool = False,
) -> dict[str, Any]:
    """One (program, profile) pair through every method, timed and verified alike; an
    infeasible verdict checked by the unpruned model (and, with `explain`, explained)."""
    row: dict[str, Any] = {"pair": i, "program": req.program}
    util = course_utility(graph, req, interest_model=cfg.interest_model)
    for method in methods:
        t0 = time.monotonic()
        dtime = None
        if method == "greedy":
            plan = greedy_plan(graph, req, util)
            status, proven, stage = "ok", True, None
        else:
            stages = None if method == "ladder" else ["weighted"]
            report: dict[str, Any] = {}
            status, p = solve_ladder(graph, req, cfg, stages=stages, report=report)
            plan = [(c.course, c.term) for c in p.courses] if p else []
            proven, stage = (p.certified, p.uncertified_stage) if p else (False, None)
            dtime = report["deterministic_s"]
            row.setdefault("stage_times", {})[method] = p.stage_times if p else {}
            row.setdefault("model", {})[method] = report["model"]
        secs = time.monotonic() - t0
        viol = verifier.check(plan, req) if status == "ok" else []
        ok = status == "ok" and proven and not viol
        row[method] = {
            "status": status,
            "certified": ok,
            "proven": proven,
            "stage": stage,
            "violations": sorted({v.kind for v in viol}),
            "seconds": round(secs, 4),
            "deterministic_s": dtime,
            "utility": round(sum(util[c] for c, _ in plan), 4) if ok else None,
            "horizon": max((t for _, t in plan), default=0) if ok else None,
        }
        if status == "infeasible":
            row[method]["confirmation"] = confirm_infeasible(graph, req, cfg).model_dump()
            if explain and method == "ladder":
                from planner.explain import explain_request

                lines, causes = explain_request(graph, req, cfg, secs)
                row[method]["explanation"] = lines
                row[method]["causes"] = causes
    return row


def _resume_rows(path: Path, key: dict[str, Any]) -> tuple[list[dict[str, Any]], IO[str]]:
    """Rows already in the checkpoint, and the checkpoint opened for appending."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        sink = path.open("w")
        sink.write(json.dumps({"key": key}) + "\n")
        return [], sink
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a checkpoint of this benchmark (not UTF-8)") from None
    lines = text.splitlines()
    if not lines or _json_object(lines[0]).get("key") != key:
        raise ValueError(
            f"{path}: rows were written with other settings than {key}; "
            "pass another --rows or delete this file"
        )
    body = [_json_object(line) for line in lines[1:]]
    # A run killed mid-write leaves at most one torn last line; that pair reruns.
    torn = bool(body) and not text.endswith("\n") and not _is_row(body[-1])
    rows = body[:-1] if torn else body
    for n, row in enumerate(rows, start=2):
        if not _is_row(row):
            raise ValueError(f"{path}:{n}: not a row of this benchmark")
    if torn:  # drop the torn tail so appended rows start on their own line
        path.write_text(text[: text.rfind("\n") + 1])
    sink = path.open("a")
    if not torn and not text.endswith("\n"):  # the last row is whole, only its newline is missing
        sink.write("\n")
    return rows, sink


def _is_row(row: dict[str, Any]) -> bool:
    return isinstance(row.get("pair"), int)


def _json_object(line: str) -> dict[str, Any]:
    """A checkpoint line's JSON object; empty when the line is not one (torn, or foreign)."""
    try:
        got = json.loads(line)
    except json.JSONDecodeError:
        return {}
    return got if isinstance(got, dict) else {}


def size_check(result: dict[str, Any]) -> list[str]:
    """Every ladder request whose largest term-indexed model exceeds the committed limit
    (planner/config/solver.yaml `size_limit`), one line each."""
    limit = result["config"]["size_limit"]
    out = []
    for r in result["rows"]:
        z = r.get("model", {}).get("ladder", {})
        if z.get("x", 0) > limit["x"] or z.get("build_s", 0.0) > limit["build_s"]:
            where = f"seed {r['seed']}, {r['courses']} courses, " if "seed" in r else ""
            head = f"{where}pair {r['pair']} ({r['program']})"
            out.append(
                f"{head}: {z.get('x', 0)} course x term variables, "
                f"built in {z.get('build_s', 0.0)} s; the limit is {limit['x']} and "
                f"{limit['build_s']} s"
            )
    return out


def render_markdown(result: dict[str, Any]) -> str:
    c = result["config"]
    lines = [
        f"Synthetic catalog: {c['courses']} courses, seed {c['seed']}, {c['pairs']} pairs, "
        f"budget {c['budget_s']:g} s per solve, {c['workers']} CP-SAT worker(s), "
        f"CP-SAT params {c['cp_sat']}.",
        "",
        "| planner | pairs | certified | infeasible, confirmed / claimed | undecided | median s "
        "| p95 s | mean utility | mean horizon |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for m, s in result["summary"].items():
        lines.append(
            f"| {m} | {s['pairs']} | {s['certified']} "
            f"({100 * s['certified'] / max(s['pairs'], 1):.1f}%) | "
            f"{s['infeasible']} / {s['infeasible_claimed']} | {s['undecided']} | "
            f"{s['median_s']} | {s['p95_s']} | {s['mean_utility']} | "
            f"{s['mean_horizon']} |"
        )
    lim = c["size_limit"]
    lines += [
        "",
        "| planner | median x | max x | max build s |",
        "| --- | ---: | ---: | ---: |",
    ]
    for m, s in result["summary"].items():
        if "max_x" in s:
            lines.append(f"| {m} | {s['median_x']:g} | {s['max_x']} | {s['max_build_s']:g} |")
    bad = size_check(result)
    lines += [
        "",
        "x: course x term variables of the largest term-indexed model a solve built. The ladder "
        f"commits to at most {lim['x']} built in at most {lim['build_s']:g} s "
        "(planner/config/solver.yaml `size_limit`): "
        + (f"exceeded by {len(bad)} request(s)." if bad else "held by every request."),
    ]
    p = result["paired_utility"]
    lines += [
        "",
        "Infeasible: a verdict the unpruned term-indexed model (no relaxation, no pruning) "
        "confirmed within its own budget; claimed: every infeasible verdict; one not confirmed "
        "counts as undecided.",
        "",
        f"Mean utility on the {p['pairs']} pairs every planner certified: "
        + ", ".join(f"{m} {p[m]}" for m in p if m != "pairs")
        + ".",
    ]
    return "\n".join(lines)
