"""The one harness of the performance benchmarks: where results go, what they say about the
machine, and how two or more arms are timed side by side.

Run a benchmark as a module from the repository root, `python -m benchmarks.bench_guards`, so
it imports the project as installed and patches no path. Results land in
benchmarks/results/NAME.json and NAME.md (the machine block of common.machine in both) and are
never overwritten unless the benchmark is run with --overwrite.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from common.machine import describe, machine
from common.outputs import OutputExistsError
from common.results import refuse_existing_results
from common.results import write_results as _write

RESULTS = Path(__file__).resolve().parent / "results"

__all__ = ["RESULTS", "describe", "machine", "parse", "results_path", "side_by_side",
           "spread", "write_results"]  # fmt: skip


def results_path(name: str, suffix: str = ".json", results: Path = RESULTS) -> Path:
    """benchmarks/results/NAME.json (or NAME + suffix)."""
    return results / f"{name}{suffix}"


def write_results(
    name: str,
    data: Mapping[str, Any] | Sequence[Any],
    markdown: str,
    *,
    overwrite: bool = False,
    results: Path = RESULTS,
) -> tuple[Path, Path]:
    """Write results/NAME.json and NAME.md with the machine block; print the markdown."""
    paths = _write(results / name, {"benchmark": name, **_as_dict(data)}, markdown,
                   overwrite=overwrite)  # fmt: skip
    print(paths[1].read_text())
    return paths


def _as_dict(data: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    return dict(data) if isinstance(data, Mapping) else {"rows": list(data)}


def spread(samples: Sequence[float], scale: float = 1.0, digits: int = 3) -> dict[str, Any]:
    """n, median, p95, min and max of `samples` (times `scale`, e.g. 1e3 for ms)."""
    xs = sorted(x * scale for x in samples)
    p95 = xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]
    return {
        "n": len(xs),
        "median": round(statistics.median(xs), digits),
        "p95": round(p95, digits),
        "min": round(xs[0], digits),
        "max": round(xs[-1], digits),
    }


def side_by_side(
    arms: Mapping[str, Callable[[int], Any]], rounds: int, *, warmup: bool = False
) -> dict[str, dict[str, Any]]:
    """Call every arm once per round, `arm(round)`, the starting arm rotating each round
    (A B, B A, ...), so load that drifts on a shared machine falls on all arms alike.

    Returns per arm its wall seconds (`spread`) and what each call returned (`outputs`), for
    arms whose own measure (a trainer's steps/s, a request rate) is the one reported.
    """
    names = list(arms)
    if warmup:  # first-call costs (imports, JIT, page cache) are not what is compared
        for name in names:
            arms[name](-1)
    seconds: dict[str, list[float]] = {n: [] for n in names}
    outputs: dict[str, list[Any]] = {n: [] for n in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            t0 = time.perf_counter()
            outputs[name].append(arms[name](r))
            seconds[name].append(time.perf_counter() - t0)
    # Microsecond resolution: callers report milliseconds of fast arms too.
    return {n: {"seconds": spread(seconds[n], digits=6), "outputs": outputs[n]} for n in names}


def parse(parser: argparse.ArgumentParser, name: str) -> argparse.Namespace:
    """Add --results and --overwrite, parse, and refuse existing results before any work."""
    parser.add_argument("--results", type=Path, default=RESULTS, help="folder for NAME.{json,md}")
    parser.add_argument(
        "--force",
        "--overwrite",
        dest="overwrite",
        action="store_true",
        help="replace existing results",
    )
    args = parser.parse_args()
    try:
        refuse_existing_results(args.results / name, args.overwrite)
    except OutputExistsError as exc:
        parser.error(str(exc))
    return args
