"""Read-only, incremental reading of a run folder's step-row traces (WebRider Table 60).

A batch may still be appending while the viewer reads: each trace file is read from the byte
offset where the last complete line ended, and a final line without its newline is left for
the next refresh instead of being reported as corrupt. A line that does not validate becomes
an error attached to its rollout (when its rollout id can be read) so the rest still renders.
Nothing here opens a file for writing.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from agent_runtime.runner.batch import MANIFEST
from agent_runtime.runner.rollout import safe_name
from agent_runtime.runner.traces import EVENTS_DIR, TRACES_DIR
from common.loading import LoadError, load_json, parse_json
from contracts.step_row import TRACE_ROW_ADAPTER, RolloutOutcome, StepRow

_ROLLOUT_ID = re.compile(r'"rollout_id"\s*:\s*"((?:[^"\\]|\\.)*)"')


class TraceError(BaseModel):
    """One problem found while reading, with the file and line it came from."""

    file: str
    line: int | None = None
    message: str
    rollout_id: str | None = None

    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass
class RolloutData:
    rollout_id: str
    steps: dict[int, StepRow] = field(default_factory=dict)
    outcome: RolloutOutcome | None = None
    errors: list[TraceError] = field(default_factory=list)
    version: int = 0  # bumped on every row read for it, so summaries can be cached

    def ordered_steps(self) -> list[StepRow]:
        return [self.steps[i] for i in sorted(self.steps)]


@dataclass
class _FileState:
    inode: int
    offset: int = 0  # bytes consumed: the end of the last complete line
    next_line: int = 1


def _rollout_id_of(line: str, obj: Any = None) -> str | None:
    if isinstance(obj, dict):
        rid = obj.get("rollout_id")
        return rid if isinstance(rid, str) else None
    m = _ROLLOUT_ID.search(line)
    if m is None:
        return None
    try:
        rid = parse_json(f'"{m.group(1)}"', "rollout id")
    except LoadError:
        return None
    return rid if isinstance(rid, str) else None


def _why(e: Exception) -> str:
    """One line naming the field, as the contract loader reports it."""
    if isinstance(e, LoadError):
        return str(e).removeprefix("line: ")[:300]
    if isinstance(e, ValidationError) and e.errors():
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "<row>"
        if err["type"] == "json_invalid":
            return f"not valid JSON: {err['msg']}"[:300]
        return f"field '{field}': {err['msg']}"[:300]
    return str(e).splitlines()[0][:300]


class RunReader:
    """One run folder as the viewer sees it; `refresh()` picks up rows appended since."""

    def __init__(self, run_dir: Path, name: str | None = None) -> None:
        self.run_dir = run_dir.resolve()
        self.name = name or run_dir.name
        self.rollouts: dict[str, RolloutData] = {}
        self.errors: list[TraceError] = []
        self.pending: dict[str, int] = {}  # trace file -> bytes of a line still being written
        self._files: dict[Path, _FileState] = {}
        self._lock = threading.Lock()
        self.generation = 0  # bumped when everything is read again from the start

    def manifest(self) -> dict[str, Any] | None:
        try:
            data = load_json(self.run_dir / MANIFEST, "run manifest")
        except LoadError:
            return None
        return data if isinstance(data, dict) else None

    def refresh(self) -> RunReader:
        with self._lock:
            self._refresh()
        return self

    def _reset(self) -> None:
        self.rollouts, self.errors, self.pending, self._files = {}, [], {}, {}
        self.generation += 1

    def _refresh(self) -> None:
        traces = self.run_dir / TRACES_DIR
        if not traces.is_dir():
            self._reset()
            self.errors.append(
                TraceError(file=str(self.run_dir), message=f"no {TRACES_DIR}/ folder in this run")
            )
            return
        paths = sorted(traces.glob("*.jsonl"))
        if any(self._replaced(p) for p in paths):
            self._reset()  # a trace file was replaced or cut short: read everything again
        self.errors = [e for e in self.errors if not e.message.startswith("cannot read")]
        for path in paths:
            self._read_new(path)

    def _replaced(self, path: Path) -> bool:
        known = self._files.get(path)
        try:
            st = path.stat()
        except OSError:
            return False
        return known is not None and (known.inode != st.st_ino or st.st_size < known.offset)

    def _read_new(self, path: Path) -> None:
        rel = str(path.relative_to(self.run_dir))
        try:
            with path.open("rb") as fh:
                st = self._files.setdefault(path, _FileState(inode=path.stat().st_ino))
                fh.seek(st.offset)
                data = fh.read()
        except OSError as e:
            self.errors.append(TraceError(file=rel, message=f"cannot read: {e.strerror}"))
            return
        end = data.rfind(b"\n") + 1
        self.pending[rel] = len(data) - end
        if end == 0:
            return
        for i, raw in enumerate(data[:end].split(b"\n")[:-1]):
            self._ingest(rel, st.next_line + i, raw.decode("utf-8", errors="replace"))
        st.offset += end
        st.next_line += data[:end].count(b"\n")

    def _ingest(self, rel: str, lineno: int, line: str) -> None:
        """One line into its rollout; any line at all, however broken, becomes at worst an
        error row (deep nesting, NaN, a lone surrogate), so every page still renders."""
        if not line.strip():
            return
        obj: Any = None
        try:
            obj = parse_json(line, "line")
            row = TRACE_ROW_ADAPTER.validate_python(obj)
        except Exception as e:
            rid = _rollout_id_of(line, obj)
            err = TraceError(file=rel, line=lineno, message=_why(e), rollout_id=rid)
            if rid is None:
                self.errors.append(err)
            else:
                self._rollout(rid).errors.append(err)
            return
        ro = self._rollout(row.rollout_id)
        if isinstance(row, RolloutOutcome):
            ro.outcome = row
        else:
            if row.step_index in ro.steps:
                ro.errors.append(
                    TraceError(
                        file=rel,
                        line=lineno,
                        message=f"step {row.step_index} written twice; showing the later row",
                        rollout_id=row.rollout_id,
                    )
                )
            ro.steps[row.step_index] = row

    def _rollout(self, rid: str) -> RolloutData:
        if rid not in self.rollouts:
            self.rollouts[rid] = RolloutData(rollout_id=rid)
        ro = self.rollouts[rid]
        ro.version += 1
        return ro

    def events(self, rollout_id: str) -> tuple[dict[int, list[dict[str, Any]]], list[TraceError]]:
        """Browser events per step index, and any line that could not be read."""
        path = self.run_dir / EVENTS_DIR / f"{safe_name(rollout_id)}.jsonl"
        rel = str(path.relative_to(self.run_dir))
        by_step: dict[int, list[dict[str, Any]]] = {}
        errors: list[TraceError] = []
        if not path.exists():
            return by_step, errors
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as e:
            return by_step, [TraceError(file=rel, message=f"cannot read: {e.strerror}")]
        lines = text.split("\n")
        if not text.endswith("\n"):
            lines = lines[:-1]  # still being written
        for lineno, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                ev = parse_json(line, "event")
                step = ev["step_index"]
                if isinstance(step, bool) or not isinstance(step, int) or step < 0:
                    raise ValueError(f"step_index {step!r} is not a step number")
            except (LoadError, ValueError, KeyError, TypeError) as e:
                errors.append(
                    TraceError(file=rel, line=lineno, message=f"unreadable event: {e}"[:300])
                )
                continue
            by_step.setdefault(step, []).append(ev)
        return by_step, errors

    def file_path(self, rel: str) -> Path | None:
        """A file inside this run folder named by a trace (e.g. a screenshot), else None."""
        try:
            path = (self.run_dir / rel).resolve()
        except (OSError, ValueError):
            return None
        if not path.is_relative_to(self.run_dir) or not path.is_file():
            return None
        return path
