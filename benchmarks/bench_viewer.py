"""Trace viewer and audit at paper scale: 4,096 rollouts per run (RiderBench's contract count),
an 80-pair study with six raters (WebRider Appendix G, Table 30).

Builds two synthetic runs by copying the committed fixture rollouts under new rollout ids (real
step rows, real screenshots), then times: a cold read of a run, the refresh after a batch appends
100 rows (incremental, against re-reading every trace file as `iter_rows` does), the viewer's
pages in-process, `audit create` for 80 pairs, and `audit report` on six raters' labels.
Writes benchmarks/results/viewer.{json,md}.

    .venv/bin/python -m benchmarks.bench_viewer [--rollouts 4096]   # about 3 min
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from agent_runtime.runner.traces import iter_rows, trace_files
from benchmarks.harness import parse, side_by_side, write_results
from evals.audit.config import load_settings
from evals.audit.create import create_study
from evals.audit.report import build_report
from evals.viewer.app import create_app
from evals.viewer.reader import RunReader

# The viewer tests' committed runs: real step rows and screenshots to multiply.
FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "helpers" / "viewer_runs" / "runs"


def synth_run(src: Path, dst: Path, n: int) -> int:
    """`n` rollouts cycling over the fixture's, each under its own contract id."""
    shutil.copytree(src / "screenshots", dst / "screenshots")
    shutil.copy(src / "run.json", dst / "run.json")
    by_rollout: dict[str, list[str]] = {}
    for line in (src / "traces" / "shard-0-of-1.jsonl").read_text().splitlines():
        rid = json.loads(line)["rollout_id"]
        by_rollout.setdefault(rid, []).append(line)
    groups = list(by_rollout.items())
    (dst / "traces").mkdir()
    rows = 0
    with (dst / "traces" / "shard-0-of-1.jsonl").open("w") as fh:
        for i in range(n):
            rid, lines = groups[i % len(groups)]
            cid = rid.rsplit("@", 1)[0]
            for line in lines:
                fh.write(line.replace(f'"{cid}', f'"{cid}-{i:05d}') + "\n")
                rows += 1
    return rows


def timed(fn, repeats: int = 5) -> float:
    """Median wall seconds of `fn` over `repeats` calls."""
    return side_by_side({"fn": lambda _r: fn()}, repeats)["fn"]["seconds"]["median"]


def label_study(path: Path, seed: int = 0) -> int:
    """Random labels from every rater slot on every assigned step and pair."""
    rng = random.Random(seed)
    con = sqlite3.connect(path)
    con.executemany(
        "UPDATE slots SET rater = ? WHERE slot = ?", [(f"r{s}", s) for s in range(1, 7)]
    )
    rows = con.execute(
        "SELECT a.slot, r.rollout_key, s.step_index FROM assignments a "
        "JOIN rollouts r USING (pair_id) JOIN steps s USING (rollout_key)"
    ).fetchall()
    con.executemany(
        "INSERT INTO step_labels VALUES (?, ?, ?, ?, 't')",
        [(*r, rng.choice(["yes", "yes", "no", "cj"])) for r in rows],
    )
    pairs = con.execute("SELECT slot, pair_id FROM assignments").fetchall()
    con.executemany(
        "INSERT INTO pair_labels VALUES (?, ?, ?, 'left', 't')",
        [(*p, rng.choice(["A", "A", "B", "tie", "neither"])) for p in pairs],
    )
    con.commit()
    con.close()
    return len(rows) + len(pairs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rollouts", type=int, default=4096)
    args = parse(ap, "viewer")
    out: dict = {"rollouts_per_run": args.rollouts}
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp) / "teacher", Path(tmp) / "perturbed"
        rows = synth_run(FIXTURE / "teacher", a, args.rollouts)
        synth_run(FIXTURE / "perturbed", b, args.rollouts)
        size = sum(p.stat().st_size for p in (a / "traces").rglob("*.jsonl"))
        out.update(step_and_outcome_rows=rows, trace_mb=round(size / 2**20, 1))

        cold = timed(lambda: RunReader(a).refresh(), repeats=3)
        reader = RunReader(a).refresh()
        extra = (a / "traces" / "shard-0-of-1.jsonl").read_text().splitlines()[:100]

        def append_and(fn):
            def go(_round: int) -> None:
                with (a / "traces" / "shard-0-of-1.jsonl").open("a") as fh:
                    fh.write("\n".join(extra) + "\n")
                fn()

            return go

        # The two ways to catch up with a growing run, interleaved on the same growing file.
        both = side_by_side(
            {
                "incremental": append_and(reader.refresh),
                "full": append_and(lambda: [r for p in trace_files(a) for r in iter_rows(p)]),
            },
            5,
        )
        out["read"] = {
            "cold_s": round(cold, 3),
            "rows_per_s": round(rows / cold),
            "refresh_after_100_rows_ms": round(1e3 * both["incremental"]["seconds"]["median"], 1),
            "full_reread_ms": round(1e3 * both["full"]["seconds"]["median"], 1),
        }

        client = TestClient(create_app([a, b]))
        client.get("/")  # warm: first read of both runs
        rid = next(iter(reader.rollouts))
        pages = {
            "runs page (first 250 of all rollouts)": "/",
            "runs page, filtered to failures": "/?status=fail",
            "rollout page": f"/run/0/rollout/{rid}",
            "compare index (first 250 shared contracts)": "/compare?a=0&b=1",
            "compare page": f"/compare/view?a=0&b=1&contract={rid.rsplit('@', 1)[0]}",
        }
        for u in pages.values():
            assert client.get(u).status_code == 200, u

        out["pages_ms"] = {
            k: round(1e3 * timed(lambda u=u: client.get(u), repeats=3), 1) for k, u in pages.items()
        }

        study = Path(tmp) / "study.sqlite"
        settings = load_settings()
        t0 = time.perf_counter()
        made = create_study(b, a, study, settings)
        create_s = time.perf_counter() - t0
        labels = label_study(study)
        report_s = timed(lambda: build_report(study), repeats=3)
        out["audit"] = {
            "pairs": made.pairs,
            "raters": made.raters,
            "steps": made.steps,
            "screenshots": made.screenshots,
            "study_mb": round(study.stat().st_size / 2**20, 2),
            "create_s": round(create_s, 2),
            "labels": labels,
            "report_s": round(report_s, 2),
        }
    write_results("viewer", out, markdown(out), overwrite=args.overwrite, results=args.results)


def markdown(r: dict) -> str:
    rd, au = r["read"], r["audit"]
    lines = [
        "# Trace viewer and audit at paper scale",
        "",
        f"Two synthetic runs of {r['rollouts_per_run']} rollouts each ({r['step_and_outcome_rows']}"
        f" rows, {r['trace_mb']} MB of JSONL per run), made from the committed fixture's real step "
        "rows and screenshots. Medians; in-process requests (no network).",
        "",
        "| measure | result |",
        "| --- | ---: |",
        f"| cold read of one run | {rd['cold_s']} s ({rd['rows_per_s']} rows/s) |",
        f"| refresh after a batch appends 100 rows: incremental | {rd['refresh_after_100_rows_ms']}"
        " ms |",
        f"| same, re-reading every trace file (`iter_rows`) | {rd['full_reread_ms']} ms |",
        *[f"| {k} | {v} ms |" for k, v in r["pages_ms"].items()],
        f"| `audit create`: {au['pairs']} pairs, {au['raters']} raters, {au['steps']} steps, "
        f"{au['screenshots']} screenshots ({au['study_mb']} MB) | {au['create_s']} s |",
        f"| `audit report` on {au['labels']} labels | {au['report_s']} s |",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
