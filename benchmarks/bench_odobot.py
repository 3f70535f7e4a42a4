"""OdoBot benchmark driver: OdoBot Table IV (success and tokens per task, one run).

Runs `pathwise odobot demo` end to end (60 demonstrations on one LMS seed, the model, 60
held-out instances on another seed with both arms) and writes benchmarks/results/odobot.json
and odobot.md with the paper's comparison beside it. Work is checkpointed in WORK: rerun the
same command to resume.

Run: .venv/bin/python benchmarks/bench_odobot.py [--work runs/bench-odobot] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import time
from pathlib import Path

from evals.odobot.report import write_report
from evals.odobot.study import run
from odobot.pipeline import OdoConfig, build, failed_demos, load_config, record
from odobot.tokens import load_counter

OUT = Path(__file__).parent / "results"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("runs/bench-odobot"))
    ap.add_argument("--limit", type=int, default=None, help="first N templates only")
    ap.add_argument("--fresh", action="store_true", help="discard WORK first")
    args = ap.parse_args()
    if args.fresh and args.work.exists():
        shutil.rmtree(args.work)
    t0 = time.perf_counter()
    cfg = load_config(args.work, OdoConfig(limit=args.limit))
    counter = load_counter(args.work / "tokenizer")
    t_rec = time.perf_counter()
    record(args.work, cfg)
    t_build = time.perf_counter()
    info = build(args.work, counter)
    t_run = time.perf_counter()
    run(args.work, cfg, counter)
    meta = {
        "wall_s": round(time.perf_counter() - t0, 1),
        "record_s": round(t_build - t_rec, 1),
        "build_s": info["build_s"],
        "run_s": round(time.perf_counter() - t_run, 1),
        "tokenizer": counter.name,
        "demonstrations_failed": failed_demos(args.work),
        "machine": f"{platform.machine()}, {platform.python_version()}, CPU only",
    }
    rep = write_report(args.work, meta)
    OUT.mkdir(exist_ok=True)
    (OUT / "odobot.json").write_text(json.dumps(rep, indent=1) + "\n")
    shutil.copyfile(args.work / "report.md", OUT / "odobot.md")
    print((OUT / "odobot.md").read_text())


if __name__ == "__main__":
    main()
