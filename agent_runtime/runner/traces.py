"""Append-only step-row traces: WebRider Appendix K, Table 60; flushed per row so a crash loses
nothing already observed, and read back to resume a run."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from pydantic import BaseModel, ValidationError

from contracts.step_row import TRACE_ROW_ADAPTER, RolloutOutcome, StepRow

TRACES_DIR = "traces"
SCREENSHOTS_DIR = "screenshots"
EVENTS_DIR = "events"


class TraceWriter:
    """Thread-safe JSONL appender; each row is flushed and fsynced before `write` returns."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        # Append mode: an existing file from an interrupted run is extended, never truncated.
        self._fh = path.open("a", encoding="utf-8")

    def write(self, row: BaseModel, redact: Callable[[str], str] | None = None) -> None:
        """Append `row`; `redact` (a rollout's secret store) is the last guard before disk."""
        line = row.model_dump_json(exclude_none=False)
        if redact is not None:
            line = redact(line)
        with self._lock:
            self._fh.write(line + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        with self._lock:
            self._fh.close()

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def trace_files(run_dir: Path) -> list[Path]:
    return sorted((run_dir / TRACES_DIR).glob("*.jsonl"))


def iter_rows(path: Path) -> Iterator[tuple[int, StepRow | RolloutOutcome | None, str | None]]:
    """Yield (line number, row or None, error or None); a torn last line is reported, not raised."""
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield lineno, TRACE_ROW_ADAPTER.validate_json(line), None
            except (ValidationError, json.JSONDecodeError, ValueError) as e:
                yield lineno, None, str(e).splitlines()[0]


def finished_outcomes(run_dir: Path) -> dict[str, list[RolloutOutcome]]:
    """Outcome rows per contract id, across every trace file of a run directory."""
    out: dict[str, list[RolloutOutcome]] = {}
    for path in trace_files(run_dir):
        for _, row, _ in iter_rows(path):
            if isinstance(row, RolloutOutcome):
                out.setdefault(row.contract.contract_id, []).append(row)
    return out


def load_outcomes(run_dir: Path) -> list[RolloutOutcome]:
    """The final outcome per contract (the last attempt written)."""
    return [rows[-1] for rows in finished_outcomes(run_dir).values()]
