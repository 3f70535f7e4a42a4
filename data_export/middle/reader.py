"""Robust trace reading: WebRider Appendix K, Table 60 step rows from append-only JSONL.

A trace directory holds `**/*.jsonl` files mixing step and outcome rows plus screenshot PNGs
referenced relative to the directory. Bad lines (invalid JSON, a truncated last append, schema
violations, unreadable files) are counted by reason with the first few `file:line` examples; they
never stop the export.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from agent_runtime.runner.traces import EVENTS_DIR
from contracts.step_row import TRACE_ROW_ADAPTER, StepRow

MAX_EXAMPLES = 5


@dataclass
class BadRows:
    """Bad-row counts per reason, with the first `max_examples` examples of each."""

    max_examples: int = MAX_EXAMPLES
    counts: Counter = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, reason: str, where: str, detail: str = "") -> None:
        self.counts[reason] += 1
        ex = self.examples.setdefault(reason, [])
        if len(ex) < self.max_examples:
            ex.append(f"{where}: {detail[:300]}" if detail else where)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def as_dict(self) -> dict[str, dict]:
        return {
            r: {"count": n, "examples": self.examples.get(r, [])}
            for r, n in sorted(self.counts.items())
        }


@dataclass
class SourceFile:
    """One trace file as read: its path relative to the trace root and the sha256 of its bytes."""

    path: str
    sha256: str = ""
    lines: int = 0
    step_rows: int = 0
    outcome_rows: int = 0
    bad_rows: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def find_trace_files(root: Path) -> list[Path]:
    """Every `*.jsonl` under root, in a stable (sorted relative path) order.

    A run directory keeps the executor's event log beside its traces (`events/*.jsonl`); those
    rows are not step rows, so they are skipped rather than counted as schema violations.
    """
    return sorted(
        (p for p in root.rglob("*.jsonl") if p.is_file() and p.parent.name != EVENTS_DIR),
        key=lambda p: p.relative_to(root).as_posix(),
    )


def _describe(err: ValidationError) -> tuple[str, str]:
    first = err.errors(include_url=False)[0]
    if first["type"] == "json_invalid":
        return "bad_json", first["msg"]
    loc = ".".join(str(x) for x in first["loc"])
    return "schema_violation", f"{loc}: {first['msg']}"


def iter_step_rows(path: Path, root: Path, bad: BadRows) -> Iterator[tuple[int, StepRow]]:
    """Yield (line number, step row) for each valid step row of one file.

    The file's SourceFile (with sha256 over exactly the bytes read) is returned as the generator's
    value, so a file appended to while it is read is hashed consistently with what was parsed.
    """
    rel = path.relative_to(root).as_posix()
    src = SourceFile(path=rel)
    h = hashlib.sha256()
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below; errors are counted, not raised
    except OSError as e:
        bad.add("unreadable_file", rel, str(e))
        return src
    with f:
        try:
            for lineno, raw in enumerate(f, 1):
                h.update(raw)
                src.lines = lineno
                if not raw.strip():
                    continue
                where = f"{rel}:{lineno}"
                try:
                    row = TRACE_ROW_ADAPTER.validate_json(raw)
                except ValidationError as e:
                    reason, detail = _describe(e)
                    bad.add(reason, where, detail)
                    src.bad_rows += 1
                    continue
                if isinstance(row, StepRow):
                    src.step_rows += 1
                    yield lineno, row
                else:
                    src.outcome_rows += 1
        except OSError as e:
            bad.add("unreadable_file", rel, str(e))
    src.sha256 = h.hexdigest()
    return src
