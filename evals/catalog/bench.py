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
    policies: tuple[str, ...] = POLICIES,
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
    arm = "model" if model is not None else "grammar"
    for policy in policies:
        out = work / "runs" / name / f"{policy}-{arm}"
        shutil.rmtree(out, ignore_errors=True)
        budgets = Budgets(pages=None) if policy == "exhaustive" else None
        server, _gate = serve(snap / "site", budgets)
        with server:
            res = browse(server.url, out, policy, model)
        m = score(snap / "gold", out, snap / "site")
        left = json.loads((out / "unresolved.json").read_text())
        m |= {
            "pages": res.pages,
            "model_calls": res.model_calls,
            "unresolved_spans": sum("span" in u for u in left),
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


def ablation(rows: list[dict[str, Any]], model_rows: list[dict[str, Any]]) -> dict[str, Any]:
    """KnowPlan Table 5's "- model fallback" row: CatalogBrowse with and without the clause
    model on the same schools, per group and track."""
    out: dict[str, Any] = {}
    for track in ("plain", "masked"):
        for group, pick in (
            ("synthetic", lambda r: r["family"] != "stolaf"),
            ("stolaf", lambda r: r["family"] == "stolaf"),
        ):
            arms = {}
            for arm, rs in (("with model", model_rows), ("without model", rows)):
                ms = [r["catalogbrowse"] for r in rs if r["track"] == track and pick(r)]
                if not ms:
                    continue
                ast_t = sum(m["ast_total"] for m in ms)
                arms[arm] = {
                    "schools": len(ms),
                    "inventory_recall": _mean([m["inventory_recall"] for m in ms]),
                    "typed_f1": _mean([m["typed_f1"] for m in ms]),
                    "ast_equivalence": sum(m["ast_equivalent"] for m in ms) / ast_t
                    if ast_t
                    else None,
                    "model_calls": _mean([m["model_calls"] for m in ms]),
                    "unresolved_prereq_spans": _mean([m.get("unresolved_spans", 0) for m in ms]),
                }
            if len(arms) == 2:
                out[f"{group}/{track}"] = arms
    return out


def render_ablation(abl: dict[str, Any], stolaf_dev: dict[str, Any] | None) -> str:
    lines = [
        "| schools | arm | inventory recall | typed F1 | AST equiv. | model calls / school | "
        "prereq spans left / school |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key, arms in abl.items():
        for arm, m in arms.items():
            lines.append(
                f"| {key} ({m['schools']}) | {arm} | {_f(m['inventory_recall'])} | "
                f"{_f(m['typed_f1'])} | {_f(m['ast_equivalence'])} | "
                f"{_f(m['model_calls'], False)} | {_f(m['unresolved_prereq_spans'], False)} |"
            )
    for split, x in (stolaf_dev or {}).items():
        for arm, key in (("with model", "grammar_plus_model"), ("without model", "grammar_only")):
            if key in x:
                lines.append(
                    f"| St. Olaf {split} strings ({x['labelled']}) | {arm} | - | - | "
                    f"{100 * x[key]['share']:.1f} | - | - |"
                )
    return "\n".join(lines)


def run_catalog(
    work: Path,
    schools: int,
    families: list[str],
    stolaf: tuple[Path, Path] | None,
    devset: Path,
    planning: int = 2,
    model: ClauseModel | None = None,
    model_name: str = "",
    subjects: dict[str, str] | None = None,
) -> tuple[dict[str, Any], str]:
    """Every (family, seed, track) school, plus St. Olaf unless `stolaf` is None, grammar only
    (all three policies); with `model`, CatalogBrowse again with the clause model (the ablation's
    other arm). Rows are checkpointed in WORK/rows.jsonl, so a rerun resumes. Returns the result
    document and its markdown."""
    from tqdm import tqdm

    from evals.catalog.clause_model import Cached, load_labelled, score_stolaf

    jobs = [(f, s, t) for t in ("plain", "masked") for f in families for s in range(schools)]
    if stolaf is not None:
        jobs += [("stolaf", 0, "plain"), ("stolaf", 0, "masked")]
    work.mkdir(parents=True, exist_ok=True)
    rows_path = work / "rows.jsonl"
    arms = [("grammar", None, POLICIES)]
    if model is not None:
        arms.append((f"model:{model_name}", model, ("catalogbrowse",)))
    done: dict[str, dict[tuple, dict]] = {arm: {} for arm, _m, _p in arms}
    if rows_path.exists():
        for r in map(json.loads, rows_path.read_text().splitlines()):
            if r.get("arm") in done:
                done[r["arm"]][(r["family"], r["seed"], r["track"])] = r
    t0 = time.time()
    with open(rows_path, "a") as sink:
        for arm, m, policies in arms:
            todo = [j for j in jobs if j not in done[arm]]
            for f, s, t in tqdm(todo, desc=f"schools ({arm})", initial=len(jobs) - len(todo),
                                total=len(jobs)):  # fmt: skip
                row = run_school(work, f, s, t, m, stolaf, planning, policies) | {"arm": arm}
                done[arm][(f, s, t)] = row
                sink.write(json.dumps(row) + "\n")
                sink.flush()
    rows = [done["grammar"][j] for j in jobs]
    agg = aggregate(rows)
    doc: dict[str, Any] = {"aggregate": agg, "rows": rows}
    items = load_labelled(devset)
    fb = Cached(model) if model is not None else None
    stolaf_dev = score_stolaf(fb, items, subjects)
    for x in stolaf_dev.values():
        x.pop("misses", None)
    doc["stolaf_strings"] = stolaf_dev
    md = (
        "# CatalogBrowse benchmark\n\n"
        f"{schools} synthetic schools per family x {len(families)} families"
        f"{'' if stolaf is None else ' + St. Olaf'}, plain and masked tracks, budgets 128 pages / "
        "32 model calls (exhaustive: no budget). Wall time "
        f"{time.time() - t0:.0f} s for the schools run in this invocation.\n\n"
    )
    if model is not None:
        model_rows = [done[arms[1][0]][j] for j in jobs]
        doc["ablation"] = ablation(rows, model_rows)
        doc["model_rows"] = model_rows
        md += (
            f"## With and without the clause model (KnowPlan Table 5)\n\nClause model: "
            f"{model_name}; CatalogBrowse on the same schools, grammar only and grammar + "
            "model (at most 32 model calls per school, distinct spans, the most shared first). "
            "St. Olaf's site has no gold ASTs; its AST rows are the hand-labelled strings "
            "(data/catalogs/stolaf-prereqs, pool excluded).\n\n"
            + render_ablation(doc["ablation"], stolaf_dev)
            + "\n\n"
        )
    md += "## Grammar only: CatalogBrowse against its baselines\n\n" + render_markdown(agg, {})
    if model is None:
        md += "\n### St. Olaf real prose, normalized AST equivalence (grammar only)\n\n"
        md += "\n".join(
            f"- {split}: {100 * x['grammar_only']['share']:.1f}% of {x['labelled']} strings"
            for split, x in stolaf_dev.items()
        )
        md += "\n"
    return doc, md
