"""CatalogBrowse benchmark: KnowPlan, Tables 1, 2 and 5 (both tracks, both baselines, one run).

Per school and track: build the snapshot (cached), run CatalogBrowse, the budgeted BFS crawler and
the platform-exhaustive crawler behind the same gate, score each against gold, verify
CatalogBrowse's certificate from receipts + snapshot, and (plain track) plan the same profiles
on gold and extracted documents. One JSON row per (school, track); rerun to resume.
`pathwise bench catalog` runs it (`run_catalog`).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from catalogbrowse.agent import browse
from catalogbrowse.fallback import ClauseModel
from catalogbrowse.verify import verify_run
from envs.catalog.gate import Budgets
from envs.catalog.server import serve
from envs.catalog.stolaf import build_stolaf
from envs.catalog.synth.build import build_synth
from evals.catalog.metrics import score
from evals.catalog.planning import paired
from planner.documents import load_docs

POLICIES = ("catalogbrowse", "bfs", "exhaustive")
FAMILIES = ("courseleaf", "acalog", "api", "pdf", "custom")


def run_school(
    work: Path,
    family: str,
    seed: int,
    track: str,
    model: ClauseModel | None = None,
    stolaf: tuple[Path, Path] | None = None,
    planning: int = 2,
) -> dict[str, Any]:
    name = f"{family}-{seed:02d}-{track}"
    snap = work / "snapshots" / name
    if not (snap / "gold" / "meta.json").exists():
        shutil.rmtree(snap, ignore_errors=True)
        if family == "stolaf":
            build_stolaf(stolaf[0], stolaf[1], snap, track == "masked")
        else:
            build_synth(family, seed, snap, track == "masked")
    row: dict[str, Any] = {"school": name, "family": family, "seed": seed, "track": track}
    for policy in POLICIES:
        out = work / "runs" / name / policy
        shutil.rmtree(out, ignore_errors=True)
        budgets = Budgets(pages=None) if policy == "exhaustive" else None
        server, _gate = serve(snap / "site", budgets)
        with server:
            res = browse(server.url, out, policy, model)
        m = score(snap / "gold", out, snap / "site")
        m |= {
            "pages": res.pages,
            "model_calls": res.model_calls,
            "stop": res.stop,
            "seconds": round(res.seconds, 2),
            "certificate": res.certificate["holds"],
        }
        if policy == "catalogbrowse":
            verdict = verify_run(out, snap / "site")
            m["verified"] = verdict.ok
            m["verify_gaps"] = verdict.gaps[:5]
            if track == "plain" and planning and family != "stolaf":
                m["planning"] = paired(load_docs(snap / "gold"), load_docs(out), planning, seed)
        row[policy] = m
    return row


def _mean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for track in ("plain", "masked"):
        for group, pick in (
            ("synthetic", lambda r: r["family"] != "stolaf"),
            ("stolaf", lambda r: r["family"] == "stolaf"),
        ):
            rs = [r for r in rows if r["track"] == track and pick(r)]
            if not rs:
                continue
            table = {}
            for p in POLICIES:
                ms = [r[p] for r in rs]
                ast_t = sum(m["ast_total"] for m in ms)
                mask_t = sum(m["masked_total"] for m in ms)
                table[p] = {
                    "schools": len(ms),
                    "inventory_recall": _mean([m["inventory_recall"] for m in ms]),
                    "typed_precision": _mean([m["typed_precision"] for m in ms]),
                    "typed_recall": _mean([m["typed_recall"] for m in ms]),
                    "typed_f1": _mean([m["typed_f1"] for m in ms]),
                    "ast_equivalence": sum(m["ast_equivalent"] for m in ms) / ast_t
                    if ast_t
                    else None,
                    "masked_recovery": sum(m["masked_recovered"] for m in ms) / mask_t
                    if mask_t
                    else None,
                    "pages": _mean([m["pages"] for m in ms]),
                    "model_calls": _mean([m["model_calls"] for m in ms]),
                    "closure_rate": _mean([m["stop"] == "closure" for m in ms]),
                    "verified_rate": _mean([m["verified"] for m in ms])
                    if p == "catalogbrowse"
                    else None,
                }
            ex = sum(r["exhaustive"]["pages"] for r in rs)
            table["pages_vs_exhaustive"] = (
                sum(r["catalogbrowse"]["pages"] for r in rs) / ex if ex else None
            )
            out[f"{group}/{track}"] = table
    fam = {}
    for r in rows:
        key = f"{r['family']}/{r['track']}"
        fam.setdefault(key, []).append(r)
    out["families"] = {
        k: {
            p: {
                "inventory_recall": _mean([r[p]["inventory_recall"] for r in rs]),
                "pages": _mean([r[p]["pages"] for r in rs]),
                "masked_recovery": (sum(r[p]["masked_recovered"] for r in rs) / t)
                if (t := sum(r[p]["masked_total"] for r in rs))
                else None,
            }
            for p in POLICIES
        }
        for k, rs in sorted(fam.items())
    }
    plans = [pl for r in rows for pl in r["catalogbrowse"].get("planning", [])]
    if plans:
        both = [p for p in plans if p["gold"]["feasible"] and p["extracted"]["feasible"]]
        out["planning"] = {
            "pairs": len(plans),
            "coverage_gold": _mean([p["gold"]["certified"] for p in plans]),
            "coverage_extracted": _mean([p["extracted"]["certified"] for p in plans]),
            "feasible_gold": _mean([p["gold"]["feasible"] for p in plans]),
            "feasible_extracted": _mean([p["extracted"]["feasible"] for p in plans]),
            "paired_pairs": len(both),
            "utility_gold": _mean([p["gold"]["utility"] for p in both]),
            "utility_extracted": _mean([p["extracted"]["utility"] for p in both]),
        }
    return out


def _f(v: Any, pct: bool = True) -> str:
    if v is None:
        return "-"
    return f"{100 * v:.1f}" if pct else f"{v:.1f}"


def render_markdown(agg: dict[str, Any], extra: dict[str, Any]) -> str:
    lines = []
    for key, table in agg.items():
        if "/" not in key or key == "families":
            continue
        lines += [
            f"### {key} ({table['catalogbrowse']['schools']} schools)",
            "",
            "| system | inventory recall | typed P | typed R | typed F1 | AST equiv. | masked "
            "recovery | pages / school | model calls | closure |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for p in POLICIES:
            m = table[p]
            lines.append(
                f"| {p} | {_f(m['inventory_recall'])} | {_f(m['typed_precision'])} | "
                f"{_f(m['typed_recall'])} | "
                f"{_f(m['typed_f1'])} | {_f(m['ast_equivalence'])} | {_f(m['masked_recovery'])} | "
                f"{_f(m['pages'], False)} | {_f(m['model_calls'], False)} | "
                f"{_f(m['closure_rate'])} |"
            )
        v = table["catalogbrowse"]["verified_rate"]
        lines += [
            "",
            f"CatalogBrowse opened {_f(table['pages_vs_exhaustive'])}% of the exhaustive "
            "crawler's pages; "
            f"`catalog verify` accepted {_f(v)}% of its certificates.",
            "",
        ]
    lines += [
        "### Per family (CatalogBrowse / BFS / exhaustive)",
        "",
        "| family / track | recall | pages | masked recovery |",
        "| --- | --- | --- | --- |",
    ]
    for k, t in agg["families"].items():
        lines.append(
            f"| {k} | "
            + " / ".join(_f(t[p]["inventory_recall"]) for p in POLICIES)
            + " | "
            + " / ".join(_f(t[p]["pages"], False) for p in POLICIES)
            + " | "
            + " / ".join(_f(t[p]["masked_recovery"]) for p in POLICIES)
            + " |"
        )
    if "planning" in agg:
        p = agg["planning"]
        lines += [
            "",
            "### Paired planning track (plain synthetic, CatalogBrowse documents vs gold)",
            "",
            "| graph | certified coverage | feasible against gold | mean utility (pairs feasible "
            "on both) |",
            "| --- | ---: | ---: | ---: |",
            f"| gold | {_f(p['coverage_gold'])} | {_f(p['feasible_gold'])} | "
            f"{p['utility_gold'] and round(p['utility_gold'], 4)} |",
            f"| extracted | {_f(p['coverage_extracted'])} | {_f(p['feasible_extracted'])} | "
            f"{p['utility_extracted'] and round(p['utility_extracted'], 4)} |",
            "",
            f"{p['pairs']} (program, profile) pairs; {p['paired_pairs']} feasible on both graphs.",
        ]
    for k, v in extra.items():
        lines += ["", f"### {k}", "", v]
    return "\n".join(lines) + "\n"


def stolaf_ast(annotated: Path, model: ClauseModel | None) -> str:
    """Normalized AST equivalence on the hand-annotated real St. Olaf strings."""
    from catalogbrowse.emit import type_prose
    from catalogbrowse.prereq import parse_prereq
    from catalogbrowse.prereq.normalize import equivalent

    rows = [json.loads(x) for x in annotated.read_text().splitlines() if x.strip()]
    typed = [r for r in rows if r["ast"] is not None]
    g = sum(equivalent(parse_prereq(r["text"]).ast, r["ast"]) for r in typed)
    out = f"Grammar only: {g}/{len(typed)} ({100 * g / len(typed):.1f}%) of the hand-annotated "
    out += "real strings."
    if model is not None:
        m = sum(
            equivalent(type_prose(r["text"], lambda s: model(s).clause)[0].prerequisite, r["ast"])
            for r in typed
        )
        out += f" Grammar + clause model: {m}/{len(typed)} ({100 * m / len(typed):.1f}%)."
    return out


def run_catalog(
    work: Path,
    schools: int,
    families: list[str],
    stolaf: tuple[Path, Path] | None,
    annotated: Path,
    planning: int = 2,
    model_dir: Path | None = None,
    adapter: Path | None = None,
) -> tuple[dict[str, Any], str]:
    """Every (family, seed, track) school, plus St. Olaf unless `stolaf` is None, with the
    clause model at `model_dir` (+ `adapter`) or the grammar alone. Rows are checkpointed in
    WORK/rows.jsonl under the model's name, so a rerun resumes. Returns the result document
    and its markdown."""
    from tqdm import tqdm

    model = None
    if model_dir:
        from catalogbrowse.backend import clause_model

        model = clause_model(model_dir=model_dir, adapter=adapter)
    jobs = [(f, s, t) for t in ("plain", "masked") for f in families for s in range(schools)]
    if stolaf is not None:
        jobs += [("stolaf", 0, "plain"), ("stolaf", 0, "masked")]
    work.mkdir(parents=True, exist_ok=True)
    rows_path = work / "rows.jsonl"
    key = {"model": str(model_dir), "adapter": str(adapter)}
    rows = []
    if rows_path.exists():
        rows = [
            r for r in map(json.loads, rows_path.read_text().splitlines()) if r.get("key") == key
        ]
    done = {(r["family"], r["seed"], r["track"]) for r in rows}
    t0 = time.time()
    with open(rows_path, "a") as sink:
        todo = [j for j in jobs if j not in done]
        for f, s, t in tqdm(todo, desc="schools", initial=len(done), total=len(jobs)):
            row = run_school(work, f, s, t, model, stolaf, planning) | {"key": key}
            rows.append(row)
            sink.write(json.dumps(row) + "\n")
            sink.flush()
    agg = aggregate([r for r in rows if (r["family"], r["seed"], r["track"]) in set(jobs)])
    extra = {"St. Olaf real prose, normalized AST equivalence": stolaf_ast(annotated, model)}
    md = (
        "# CatalogBrowse benchmark\n\n"
        f"{schools} synthetic schools per family x {len(families)} families"
        f"{'' if stolaf is None else ' + St. Olaf'}, plain and masked tracks, budgets 128 pages / "
        "32 model calls (exhaustive: no budget). Clause model: "
        f"{model_dir or 'none (grammar only)'}. Wall time {time.time() - t0:.0f} s for the "
        "schools run in this invocation.\n\n" + render_markdown(agg, extra)
    )
    return {"aggregate": agg, "extra": extra, "rows": rows}, md
