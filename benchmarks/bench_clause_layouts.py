"""Which answer layout the 135M clause model learns best: short equal runs, held-out families.

KnowPlan's clause model answers a finite clause schema; how that answer is written is ours to
choose (planner/clause_layout.py: `tree`, the clause AST's own JSON; `keyed`, one key per node;
`prefix`, operator-led arrays). For each layout: the same generator records (same seed, so the
same spans and clauses) exported in that layout, the same recipe (training/recipes/
demo-clause-smollm2.yaml) for the same number of optimizer steps on the same base, then the
model alone on the same held-out-family records, decoded under that layout's span schema with
the fallback's validation and retry. Reported: AST equivalence (logical, over atoms), valid
answers, completion tokens per answer, training and scoring time. Writes
benchmarks/results/clause_layouts.{json,md}.

    .venv/bin/python -m benchmarks.bench_clause_layouts --base runs/models/smollm2-135m-instruct \
        [--steps 48] [--records 1200] [--score 120] [--layouts keyed,prefix,tree]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from benchmarks.harness import describe, machine, parse, write_results
from catalogbrowse.fallback import ClauseModel
from data_export.clauses.export import ClauseExportConfig, export_clauses
from evals.catalog.clause_model import Cached, score_heldout
from planner.clause_layout import LAYOUTS
from training.launch import TrainLaunch, train

REPO = Path(__file__).resolve().parent.parent
RECIPE = REPO / "training/recipes/demo-clause-smollm2.yaml"


def one(layout: str, base: Path, work: Path, steps: int, records: int, k: int) -> dict[str, Any]:
    from base_models.precision import resolve
    from serving.embedded import EmbeddedBackend

    data = work / f"data-{layout}"
    if not (data / "manifest.json").exists():
        export_clauses(ClauseExportConfig(out=data, n=records, eval_n=2 * k, seed=11,
                                          layout=layout, overwrite=True))  # fmt: skip
    adapter = work / f"adapter-{layout}"
    t0 = time.perf_counter()
    summary = train(TrainLaunch(recipe=RECIPE, model=str(base), dataset=data, out=adapter,
                                max_steps=steps), log=work / f"train-{layout}.log")  # fmt: skip
    train_s = time.perf_counter() - t0
    _p, dtype, _why = resolve("auto")
    fb = Cached(ClauseModel(EmbeddedBackend(base, adapter_dir=adapter, dtype=dtype), layout))
    t0 = time.perf_counter()
    res = score_heldout(fb, data, k)
    return {
        "layout": layout,
        "steps": summary["global_step"],
        "precision": summary["precision"],
        "last_loss": round(summary["train_losses"][-1], 4),
        "train_seconds": round(train_s),
        "heldout": {key: res[key] for key in ("n", "model_alone", "by_kind")},
        "valid": sum(a is not None for a in fb.answers.values()),
        "calls": fb.stats(),
        "score_seconds": round(time.perf_counter() - t0),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", type=Path, default=REPO / "runs/models/smollm2-135m-instruct")
    p.add_argument("--work", type=Path, default=REPO / "runs/bench-clause-layouts")
    p.add_argument("--steps", type=int, default=48)
    p.add_argument("--records", type=int, default=1200)
    p.add_argument("--score", type=int, default=120, help="held-out records scored per layout")
    p.add_argument("--layouts", default=",".join(LAYOUTS))
    args = parse(p, "clause_layouts")
    args.work.mkdir(parents=True, exist_ok=True)
    rows = [
        one(layout, args.base, args.work, args.steps, args.records, args.score)
        for layout in args.layouts.split(",")
    ]
    m = machine()
    md = [
        "# Clause model answer layouts (SmolLM2-135M-Instruct, equal short runs)",
        "",
        f"Machine: {describe(m)}. Each layout: {args.steps} optimizer steps of the recipe "
        f"`training/recipes/demo-clause-smollm2.yaml` on the same {args.records} generator "
        f"records, then the model alone on the same {args.score} held-out-family records under "
        "its span schema (validation and one retry as in the fallback). Logical AST "
        "equivalence; one run each on a shared machine.",
        "",
        "| layout | AST equivalence | segments | no-requirement | strings | valid | completion "
        "tokens / span | median s / span | last loss | training s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        h, k = r["heldout"], r["heldout"]["by_kind"]

        def share(kind: str, k=k) -> str:
            return f"{100 * k[kind]['model_alone']['share']:.1f}%" if kind in k else "-"

        md.append(
            f"| {r['layout']} | {100 * h['model_alone']['share']:.1f}% | {share('segment')} | "
            f"{share('none')} | {share('string')} | {r['valid']}/{r['calls']['spans']} | "
            f"{r['calls']['completion_tokens_per_span']} | "
            f"{r['calls']['median_seconds_per_span']} | {r['last_loss']} | {r['train_seconds']} |"
        )
    write_results("clause_layouts", {"args": {k: str(v) for k, v in vars(args).items()},
                  "rows": rows}, "\n".join(md) + "\n", overwrite=args.overwrite,
                  results=args.results)  # fmt: skip


if __name__ == "__main__":
    main()
