"""A rater's side of the study (WebRider Appendix G, Figure 7 and Table 30's workflow).

Every function works on one rater slot and reads or writes only that slot's labels, so one
rater never sees another's. Sides are "left" and "right" here; which arm each one shows is
the slot's own seeded draw, resolved only inside this module. Each label is committed before
the call returns.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from evals.audit.store import (
    GATES,
    SHOWN_LABELS,
    STEP_LABELS,
    StepDisplay,
    StudyError,
    connect,
    now,
    read_meta,
)
from evals.viewer.contract_view import ContractView

Side = Literal["left", "right"]
MAX_NAME = 60


class SideView(BaseModel):
    steps: list[StepDisplay]
    labels: dict[int, str]
    gates: dict[str, str]


class Packet(BaseModel):
    position: int
    total: int
    contract: ContractView
    left: SideView
    right: SideView
    choice: str | None
    gate_labels: bool
    complete: bool


def clean_name(name: str) -> str:
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise StudyError(f"a rater name is 1-{MAX_NAME} printable characters")
    return name


def sign_in(path: Path, name: str) -> int:
    """The rater's slot: theirs if they signed in before, else the lowest free one."""
    name = clean_name(name)
    with connect(path) as con:
        row = con.execute("SELECT slot FROM slots WHERE rater = ?", (name,)).fetchone()
        if row:
            return int(row["slot"])
        free = con.execute("SELECT slot FROM slots WHERE rater IS NULL ORDER BY slot").fetchone()
        if free is None:
            total = con.execute("SELECT COUNT(*) FROM slots").fetchone()[0]
            raise StudyError(f"all {total} rater places in this study are taken")
        con.execute(
            "UPDATE slots SET rater = ?, signed_in_at = ? WHERE slot = ?",
            (name, now(), free["slot"]),
        )
        return int(free["slot"])


def slot_of(path: Path, name: str) -> int | None:
    with connect(path) as con:
        row = con.execute("SELECT slot FROM slots WHERE rater = ?", (name,)).fetchone()
    return int(row["slot"]) if row else None


def _assignment(con: sqlite3.Connection, slot: int, position: int) -> sqlite3.Row:
    row = con.execute(
        "SELECT pair_id, a_left FROM assignments WHERE slot = ? AND position = ?",
        (slot, position),
    ).fetchone()
    if row is None:
        raise StudyError(f"no pair {position} in this rater's queue")
    return row


def _side_key(con: sqlite3.Connection, slot: int, position: int, side: Side) -> tuple[int, int]:
    """(pair_id, rollout_key) shown on `side` for this slot."""
    a = _assignment(con, slot, position)
    arm = "A" if (side == "left") == bool(a["a_left"]) else "B"
    row = con.execute(
        "SELECT rollout_key FROM rollouts WHERE pair_id = ? AND arm = ?", (a["pair_id"], arm)
    ).fetchone()
    return int(a["pair_id"]), int(row["rollout_key"])


def _side_view(con: sqlite3.Connection, slot: int, key: int) -> SideView:
    steps = [
        StepDisplay.model_validate_json(r["display_json"])
        for r in con.execute(
            "SELECT display_json FROM steps WHERE rollout_key = ? ORDER BY step_index", (key,)
        )
    ]
    labels = {
        int(r["step_index"]): r["label"]
        for r in con.execute(
            "SELECT step_index, label FROM step_labels WHERE slot = ? AND rollout_key = ?",
            (slot, key),
        )
    }
    gates = {
        r["gate"]: r["label"]
        for r in con.execute(
            "SELECT gate, label FROM gate_labels WHERE slot = ? AND rollout_key = ?", (slot, key)
        )
    }
    return SideView(steps=steps, labels=labels, gates=gates)


def _complete(side: SideView, gate_labels: bool) -> bool:
    steps_done = all(s.index in side.labels for s in side.steps)
    return steps_done and (not gate_labels or len(side.gates) == len(GATES))


def packet(path: Path, slot: int, position: int) -> Packet:
    with connect(path) as con:
        gate_labels = bool(read_meta(con).get("gate_labels"))
        total = con.execute("SELECT COUNT(*) FROM assignments WHERE slot = ?", (slot,)).fetchone()
        pair_id, left_key = _side_key(con, slot, position, "left")
        _, right_key = _side_key(con, slot, position, "right")
        contract = con.execute(
            "SELECT contract_json FROM pairs WHERE pair_id = ?", (pair_id,)
        ).fetchone()
        choice = con.execute(
            "SELECT shown FROM pair_labels WHERE slot = ? AND pair_id = ?", (slot, pair_id)
        ).fetchone()
        left, right = _side_view(con, slot, left_key), _side_view(con, slot, right_key)
    return Packet(
        position=position,
        total=int(total[0]),
        contract=ContractView.model_validate_json(contract["contract_json"]),
        left=left,
        right=right,
        choice=choice["shown"] if choice else None,
        gate_labels=gate_labels,
        complete=choice is not None
        and _complete(left, gate_labels)
        and _complete(right, gate_labels),
    )


def progress(path: Path, slot: int) -> list[bool]:
    """Completion of each queue position, in order."""
    with connect(path) as con:
        n = con.execute("SELECT COUNT(*) FROM assignments WHERE slot = ?", (slot,)).fetchone()[0]
    return [packet(path, slot, pos).complete for pos in range(1, n + 1)]


def next_position(path: Path, slot: int) -> int | None:
    """Where a rater resumes: the first pair they have not finished."""
    done = progress(path, slot)
    return next((i + 1 for i, ok in enumerate(done) if not ok), None)


def _log(con: sqlite3.Connection, slot: int, what: str, value: str) -> None:
    con.execute(
        "INSERT INTO label_log (at, slot, what, value) VALUES (?, ?, ?, ?)",
        (now(), slot, what, value),
    )


def set_step_label(path: Path, slot: int, position: int, side: Side, step: int, label: str) -> None:
    if label not in STEP_LABELS:
        raise StudyError(f"step label must be one of {STEP_LABELS}, not {label!r}")
    with connect(path) as con:
        _, key = _side_key(con, slot, position, side)
        if not con.execute(
            "SELECT 1 FROM steps WHERE rollout_key = ? AND step_index = ?", (key, step)
        ).fetchone():
            raise StudyError(f"pair {position} {side} has no step {step}")
        con.execute(
            "INSERT INTO step_labels (slot, rollout_key, step_index, label, updated_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (slot, rollout_key, step_index) "
            "DO UPDATE SET label = excluded.label, updated_at = excluded.updated_at",
            (slot, key, step, label, now()),
        )
        _log(con, slot, f"step rollout={key} step={step}", label)


def set_gate_label(path: Path, slot: int, position: int, side: Side, gate: str, label: str) -> None:
    if gate not in GATES or label not in STEP_LABELS:
        raise StudyError(f"gate must be one of {GATES} and label one of {STEP_LABELS}")
    with connect(path) as con:
        if not read_meta(con).get("gate_labels"):
            raise StudyError("this study was created without gate labels")
        _, key = _side_key(con, slot, position, side)
        con.execute(
            "INSERT INTO gate_labels (slot, rollout_key, gate, label, updated_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (slot, rollout_key, gate) "
            "DO UPDATE SET label = excluded.label, updated_at = excluded.updated_at",
            (slot, key, gate, label, now()),
        )
        _log(con, slot, f"gate rollout={key} gate={gate}", label)


def set_pair_label(path: Path, slot: int, position: int, shown: str) -> None:
    """The rater's preference as shown (left/right/...), stored with the arm it stands for."""
    if shown not in SHOWN_LABELS:
        raise StudyError(f"pair label must be one of {SHOWN_LABELS}, not {shown!r}")
    with connect(path) as con:
        a = _assignment(con, slot, position)
        choice = shown
        if shown in ("left", "right"):
            choice = "A" if (shown == "left") == bool(a["a_left"]) else "B"
        con.execute(
            "INSERT INTO pair_labels (slot, pair_id, choice, shown, updated_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (slot, pair_id) "
            "DO UPDATE SET choice = excluded.choice, shown = excluded.shown, "
            "updated_at = excluded.updated_at",
            (slot, a["pair_id"], choice, shown, now()),
        )
        _log(con, slot, f"pair {a['pair_id']}", shown)


def image(path: Path, slot: int, position: int, side: Side, step: int) -> bytes | None:
    with connect(path) as con:
        _, key = _side_key(con, slot, position, side)
        row = con.execute(
            "SELECT screenshot FROM steps WHERE rollout_key = ? AND step_index = ?", (key, step)
        ).fetchone()
    return bytes(row["screenshot"]) if row and row["screenshot"] is not None else None
