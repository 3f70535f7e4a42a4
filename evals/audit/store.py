"""The study database: one SQLite file holds the blinded packets (WebRider Appendix G, Figure 7),
the rater assignments and every label, so a study can be copied to another machine whole.

Screenshots and the displayed step fields are copied in at creation: the raters' pages never
read a run folder, and a run that is moved or extended later cannot change what was rated.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel

SCHEMA_VERSION = 1
STEP_LABELS = ("yes", "no", "cj")
PAIR_LABELS = ("A", "B", "tie", "neither", "cj")
SHOWN_LABELS = ("left", "right", "tie", "neither", "cj")
GATES = ("terminal", "hard", "evidence", "answer", "blocker")

SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE pairs (
  pair_id INTEGER PRIMARY KEY,
  contract_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('anchor', 'coverage')),
  contract_json TEXT NOT NULL
);
CREATE TABLE rollouts (
  rollout_key INTEGER PRIMARY KEY,
  pair_id INTEGER NOT NULL REFERENCES pairs,
  arm TEXT NOT NULL CHECK (arm IN ('A', 'B')),
  rollout_id TEXT NOT NULL,
  n_steps INTEGER NOT NULL,
  outcome_json TEXT,
  UNIQUE (pair_id, arm)
);
CREATE TABLE steps (
  rollout_key INTEGER NOT NULL REFERENCES rollouts,
  step_index INTEGER NOT NULL,
  display_json TEXT NOT NULL,
  screenshot BLOB,
  PRIMARY KEY (rollout_key, step_index)
);
CREATE TABLE slots (slot INTEGER PRIMARY KEY, rater TEXT UNIQUE, signed_in_at TEXT);
CREATE TABLE assignments (
  slot INTEGER NOT NULL REFERENCES slots,
  pair_id INTEGER NOT NULL REFERENCES pairs,
  position INTEGER NOT NULL,
  a_left INTEGER NOT NULL,
  PRIMARY KEY (slot, pair_id),
  UNIQUE (slot, position)
);
CREATE TABLE step_labels (
  slot INTEGER NOT NULL REFERENCES slots,
  rollout_key INTEGER NOT NULL REFERENCES rollouts,
  step_index INTEGER NOT NULL,
  label TEXT NOT NULL CHECK (label IN {STEP_LABELS}),
  updated_at TEXT NOT NULL,
  PRIMARY KEY (slot, rollout_key, step_index)
);
CREATE TABLE pair_labels (
  slot INTEGER NOT NULL REFERENCES slots,
  pair_id INTEGER NOT NULL REFERENCES pairs,
  choice TEXT NOT NULL CHECK (choice IN {PAIR_LABELS}),
  shown TEXT NOT NULL CHECK (shown IN {SHOWN_LABELS}),
  updated_at TEXT NOT NULL,
  PRIMARY KEY (slot, pair_id)
);
CREATE TABLE gate_labels (
  slot INTEGER NOT NULL REFERENCES slots,
  rollout_key INTEGER NOT NULL REFERENCES rollouts,
  gate TEXT NOT NULL CHECK (gate IN {GATES}),
  label TEXT NOT NULL CHECK (label IN {STEP_LABELS}),
  updated_at TEXT NOT NULL,
  PRIMARY KEY (slot, rollout_key, gate)
);
-- Every label as it was given, in order: changes of mind stay visible to the analyst.
CREATE TABLE label_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  slot INTEGER NOT NULL,
  what TEXT NOT NULL,
  value TEXT NOT NULL
);
"""


class StepDisplay(BaseModel):
    """What a rater sees of one step: no run name, policy, raw model text or gate."""

    index: int
    intention: str = ""
    action: str = ""
    decision: str = "browse"
    answer: str | None = None
    url: str = ""
    title: str = ""
    screenshot: bool = False


class StudyError(ValueError):
    """The study file is missing, not a study, or cannot take this request."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@contextlib.contextmanager
def connect(path: Path, *, create: bool = False) -> Iterator[sqlite3.Connection]:
    """A connection that commits on success; WAL so several raters can write at once."""
    if not create and not Path(path).is_file():
        raise StudyError(f"{path}: no such study database")
    con = sqlite3.connect(path, timeout=30)
    con.row_factory = sqlite3.Row
    try:
        con.execute("PRAGMA foreign_keys = ON")
        if not create:
            try:
                con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            except sqlite3.DatabaseError as e:
                raise StudyError(f"{path}: not a Pathwise study database ({e})") from None
        yield con
        con.commit()
    except BaseException:
        con.rollback()
        raise
    finally:
        con.close()


def read_meta(con: sqlite3.Connection) -> dict[str, Any]:
    return {r["key"]: json.loads(r["value"]) for r in con.execute("SELECT key, value FROM meta")}


def write_schema(con: sqlite3.Connection, meta: dict[str, Any]) -> None:
    con.executescript(SCHEMA)
    con.execute("PRAGMA journal_mode = WAL")
    meta = {"schema_version": SCHEMA_VERSION, **meta}
    con.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?)",
        [(k, json.dumps(v)) for k, v in meta.items()],
    )
