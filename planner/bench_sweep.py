"""The ladder over many generated catalogs: KnowPlan, DegreeMap "Exact planning" (every request
decided within the budget, on catalogs the planner was not tuned on).

`pathwise bench planner --seeds A-B --courses N ...` runs the planner benchmark's ladder
(planner/bench.py: same requests, verifier, model sizes, confirmed infeasible verdicts) on the
catalog of every seed at every size, and reports per size: decided (certified, or infeasible
and confirmed by the unpruned model), undecided, median and p95 seconds, the largest model,
build seconds; and each infeasible request with the explanation `pathwise plan` gives.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from planner.bench import _pct, run_bench, size_check, verdicts


def parse_seeds(text: str) -> list[int]:
    """`A-B` (inclusive) or `A,B,C`; a ValueError names what was wrong."""
    bad = ValueError(f"--seeds {text!r}: expected A-B (0 <= A <= B) or A,B,C, e.g. 2-11")
    try:
        if "-" in text:
            a, b = (int(x) for x in text.split("-", 1))
            seeds = list(range(a, b + 1))
        else:
            seeds = [int(x) for x in text.split(",")]
    except ValueError:
        raise bad from None
    if not seeds or min(seeds) < 0:
        raise bad
    return seeds


def run_sweep(
    seeds: list[int],
    sizes: list[int],
    pairs: int = 20,
    budget: float | None = None,
    rows_dir: Path | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """The ladder on `pairs` requests of every (size, seed) catalog. With `rows_dir`, each
    catalog checkpoints its rows in ROWS_DIR/cSIZE-sSEED.jsonl and a rerun skips them."""
    rows: list[dict[str, Any]] = []
    config: dict[str, Any] = {}
    for size in sizes:
        for seed in seeds:
            path = rows_dir / f"c{size}-s{seed}.jsonl" if rows_dir is not None else None
            one = run_bench(
                pairs,
                seed=seed,
                n_courses=size,
                budget=budget,
                rows_path=path,
                methods=("ladder",),
                explain=True,
                progress=progress,
                label=f"{size} courses, seed {seed}",
            )
            config = one["config"]
            rows += [{"seed": seed, "courses": size, **r} for r in one["rows"]]
    config = {k: v for k, v in config.items() if k not in ("seed", "courses")}
    config |= {"seeds": seeds, "sizes": sizes}
    per_size = {str(size): summarize([r for r in rows if r["courses"] == size]) for size in sizes}
    return {"config": config, "summary": per_size, "rows": rows}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One size's rows: verdicts, seconds, model sizes and the confirmations' cost."""
    rs = [r["ladder"] for r in rows]
    secs = [r["seconds"] for r in rs]
    models = [r["model"]["ladder"] for r in rows]
    checks = [r["confirmation"] for r in rs if "confirmation" in r]
    return {
        "pairs": len(rs),
        "certified": sum(r["certified"] for r in rs),
        **verdicts(rs),
        "median_s": round(statistics.median(secs), 3) if secs else None,
        "p95_s": round(_pct(secs, 0.95), 3),
        "max_s": max(secs, default=None),
        "median_deterministic_s": round(statistics.median([r["deterministic_s"] for r in rs]), 3)
        if rs
        else None,
        "max_x": max((z.get("x", 0) for z in models), default=0),
        "median_x": statistics.median([z.get("x", 0) for z in models]) if models else 0,
        "max_build_s": max((z.get("build_s", 0.0) for z in models), default=0.0),
        "max_confirm_s": max((c["wall_s"] for c in checks), default=None),
        "max_confirm_x": max((c["x"] for c in checks), default=None),
        "per_seed": {
            str(seed): verdicts([r["ladder"] for r in rows if r["seed"] == seed])
            for seed in sorted({r["seed"] for r in rows})
        },
    }


def render_markdown(result: dict[str, Any]) -> str:
    c = result["config"]
    seeds = c["seeds"]
    lines = [
        "# Planner seed sweep (synthetic catalogs)",
        "",
        f"The ladder, top-1, on {c['pairs']} requests of each generated catalog: seeds "
        f"{_span(seeds)} at {', '.join(f'{n:,}' for n in c['sizes'])} courses; budget "
        f"{c['budget_s']:g} deterministic s per request, {c['workers']} CP-SAT worker(s), "
        f"CP-SAT params {c['cp_sat']}. Every plan checked by the independent verifier; every "
        "infeasible verdict re-checked by the unpruned term-indexed model (no relaxation, no "
        "pruning) within a budget of its own.",
        "",
        "| courses | requests | decided | certified | infeasible (confirmed / claimed) "
        "| undecided | median s | p95 s | max s | median det. s | median x | max x "
        "| max build s | slowest confirmation s |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: | ---: |",
    ]
    for size, s in result["summary"].items():
        lines.append(
            f"| {int(size):,} | {s['pairs']} | {s['decided']} | {s['certified']} | "
            f"{s['infeasible']} / {s['infeasible_claimed']} | {s['undecided']} | "
            f"{s['median_s']} | {s['p95_s']} | {s['max_s']} | {s['median_deterministic_s']} | "
            f"{s['median_x']:g} | {s['max_x']} | {s['max_build_s']:g} | "
            f"{s['max_confirm_s'] if s['max_confirm_s'] is not None else '-'} |"
        )
    lim = c["size_limit"]
    bad = size_check(result)
    lines += [
        "",
        "Decided: certified optimal (and verified), or infeasible as confirmed by the unpruned "
        "model; an infeasible verdict it did not confirm counts as undecided. x: course x term "
        "variables of the largest term-indexed model a request built; build s: the longest "
        "build of one model (wall). The ladder commits to at most "
        f"{lim['x']} variables built in at most {lim['build_s']:g} s "
        "(planner/config/solver.yaml `size_limit`): "
        + (f"exceeded by {len(bad)} request(s)." if bad else "held by every request."),
        "",
        "## Per seed",
        "",
        "| courses | seed | decided | infeasible (confirmed / claimed) | undecided |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for size, s in result["summary"].items():
        for seed, v in s["per_seed"].items():
            lines.append(
                f"| {int(size):,} | {seed} | {v['decided']} | {v['infeasible']} / "
                f"{v['infeasible_claimed']} | {v['undecided']} |"
            )
    lines += _undecided(result["rows"]) + _infeasible(result["rows"])
    return "\n".join(lines)


def _span(seeds: list[int]) -> str:
    if seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    return ", ".join(map(str, seeds))


def _where(r: dict[str, Any]) -> str:
    return f"{r['courses']:,} courses, seed {r['seed']}, pair {r['pair']} ({r['program']})"


def _undecided(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in rows:
        x = r["ladder"]
        if x["certified"] or x.get("confirmation", {}).get("status") == "confirmed":
            continue
        why = (
            f"infeasible claimed, unpruned model: {x['confirmation']['status']}"
            if "confirmation" in x
            else f"{x['status']}, budget ran out in {x['stage']}"
        )
        out.append(f"- {_where(r)}: {why}")
    return ["", "## Undecided", "", *(out or ["None."])]


def _infeasible(rows: list[dict[str, Any]]) -> list[str]:
    """Each infeasible request with what `pathwise plan` says of it."""
    out = ["", "## Infeasible requests and their explanations", ""]
    claimed = [r for r in rows if r["ladder"]["status"] == "infeasible"]
    if not claimed:
        return [*out, "None."]
    for r in claimed:
        x, conf = r["ladder"], r["ladder"]["confirmation"]
        out += [
            f"### {_where(r)}",
            "",
            f"Ladder {x['seconds']} s; unpruned model: {conf['status']} "
            f"({conf['x']} variables, {conf['deterministic_s']} det. s, {conf['wall_s']} s).",
            "",
            "```",
            *x.get("explanation", []),
            "```",
            "",
        ]
    return out
