"""CatalogBrowse benchmark driver: KnowPlan, Tables 1, 2 and 5 (20 schools x 5 families + St. Olaf,
plain and masked, CatalogBrowse vs budgeted BFS vs platform-exhaustive, one run).

Writes benchmarks/results/catalog.json and catalog.md. Rows are checkpointed in
WORK/rows.jsonl: rerun the same command to resume."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tqdm import tqdm

from catalogbrowse.prereq import parse_prereq
from catalogbrowse.prereq.normalize import equivalent
from evals.catalog.bench import aggregate, render_markdown, run_school

OUT = Path(__file__).parent / "results"
FAMILIES = ("courseleaf", "acalog", "api", "pdf", "custom")
ANNOTATED = Path(__file__).parents[1] / "tests" / "catalog" / "fixtures" / "stolaf_prereqs.jsonl"


def stolaf_ast(model) -> str:
    rows = [json.loads(x) for x in ANNOTATED.read_text().splitlines() if x.strip()]
    typed = [r for r in rows if r["ast"] is not None]
    from catalogbrowse.emit import type_prose

    g = sum(equivalent(parse_prereq(r["text"]).ast, r["ast"]) for r in typed)
    share = 100 * g / len(typed)
    out = f"Grammar only: {g}/{len(typed)} ({share:.1f}%) of the hand-annotated real strings."
    if model is not None:
        m = sum(
            equivalent(type_prose(r["text"], lambda s: model(s).clause)[0].prerequisite, r["ast"])
            for r in typed
        )
        out += f" Grammar + clause model: {m}/{len(typed)} ({100 * m / len(typed):.1f}%)."
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--schools", type=int, default=20, help="seeds per family")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--work", type=Path, default=Path("runs/bench_catalog"))
    ap.add_argument("--stolaf-src", type=Path, default=Path("../shared/data/catalogs"))
    ap.add_argument("--stolaf-docs", type=Path, default=Path("data/catalogs/stolaf"))
    ap.add_argument("--no-stolaf", action="store_true")
    ap.add_argument("--planning", type=int, default=2, help="profiles per plain synthetic school")
    ap.add_argument("--clause-model-dir", type=Path, default=None, help="clause model checkpoint")
    ap.add_argument("--clause-adapter", type=Path, default=None, help="its LoRA adapter")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    model = None
    if args.clause_model_dir:
        from catalogbrowse.backend import clause_model

        model = clause_model(model_dir=args.clause_model_dir, adapter=args.clause_adapter)
    jobs = [
        (f, s, t)
        for t in ("plain", "masked")
        for f in args.families.split(",")
        for s in range(args.schools)
    ]
    if not args.no_stolaf:
        jobs += [("stolaf", 0, "plain"), ("stolaf", 0, "masked")]
    args.work.mkdir(parents=True, exist_ok=True)
    rows_path = args.work / "rows.jsonl"
    key = {"model": str(args.clause_model_dir), "adapter": str(args.clause_adapter)}
    rows = []
    if rows_path.exists():
        rows = [
            r for r in map(json.loads, rows_path.read_text().splitlines()) if r.get("key") == key
        ]
    done = {(r["family"], r["seed"], r["track"]) for r in rows}
    t0 = time.time()
    with open(rows_path, "a") as sink:
        for f, s, t in tqdm(
            [j for j in jobs if j not in done], desc="schools", initial=len(done), total=len(jobs)
        ):
            row = run_school(
                args.work, f, s, t, model, (args.stolaf_src, args.stolaf_docs), args.planning
            )
            row["key"] = key
            rows.append(row)
            sink.write(json.dumps(row) + "\n")
            sink.flush()
    agg = aggregate([r for r in rows if (r["family"], r["seed"], r["track"]) in set(jobs)])
    extra = {"St. Olaf real prose, normalized AST equivalence": stolaf_ast(model)}
    md = (
        "# CatalogBrowse benchmark\n\n"
        f"{args.schools} synthetic schools per family x {len(args.families.split(','))} families"
        f"{'' if args.no_stolaf else ' + St. Olaf'}, plain and masked tracks, budgets 128 pages / "
        "32 model calls "
        f"(exhaustive: no budget). Clause model: {args.clause_model_dir or 'none (grammar only)'}. "
        f"Wall time {time.time() - t0:.0f} s for the schools run in this invocation, on a shared "
        "2-core machine.\n\n" + render_markdown(agg, extra)
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "catalog.json").write_text(
        json.dumps({"aggregate": agg, "extra": extra, "rows": rows}, indent=1) + "\n"
    )
    (args.out / "catalog.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
