"""SQLite for local web apps: tables created from pydantic models, seeded once, read per request.

Every local application (contract sites, the LMS) keeps its seeded data in one SQLite database.
Nested fields (lists, dicts) are stored as JSON text and come back decoded, so an app reads the
same records it was seeded with; SQL does the filtering, sorting and paging.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from types import UnionType
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

_SQL_TYPES = {int: "INTEGER", float: "REAL", bool: "INTEGER", str: "TEXT"}


def _scalar(annotation: Any) -> Any:
    """`float | None` is still a REAL column (NULL for None), so SQL can sort on it."""
    if get_origin(annotation) in (Union, UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            annotation = args[0]
    return annotation if annotation in _SQL_TYPES else None


def _column_type(annotation: Any) -> str:
    return _SQL_TYPES.get(_scalar(annotation), "TEXT")


def _is_json(annotation: Any) -> bool:
    return _scalar(annotation) is None


class SqliteStore:
    """One in-memory SQLite database shared by a server's request threads (a lock serialises use).

    The data of a local app is small and read-mostly, so one connection with a lock is simpler
    and faster than a pool; writes (a cart, a booking draft) go through `execute`.
    """

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:", check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        self._json_cols: dict[str, set[str]] = {}

    def create_table(self, name: str, model: type[BaseModel], key: str | None = None) -> None:
        cols, json_cols = [], set()
        for field, info in model.model_fields.items():
            sql_type = _column_type(info.annotation)
            if _is_json(info.annotation):
                json_cols.add(field)
            pk = " PRIMARY KEY" if field == key else ""
            cols.append(f'"{field}" {sql_type}{pk}')
        self._json_cols[name] = json_cols
        with self._lock:
            self._conn.execute(f'CREATE TABLE "{name}" ({", ".join(cols)})')

    def insert(self, name: str, rows: Iterable[BaseModel]) -> int:
        rows = list(rows)
        if not rows:
            return 0
        fields = list(type(rows[0]).model_fields)
        json_cols = self._json_cols.get(name, set())
        values = []
        for r in rows:
            d = r.model_dump(mode="json")
            values.append(
                [json.dumps(d[f], sort_keys=True) if f in json_cols else d[f] for f in fields]
            )
        cols = ", ".join(f'"{f}"' for f in fields)
        marks = ", ".join("?" for _ in fields)
        with self._lock:
            self._conn.executemany(f'INSERT INTO "{name}" ({cols}) VALUES ({marks})', values)
            self._conn.commit()
        return len(values)

    def seed(
        self, tables: dict[str, tuple[type[BaseModel], str | None, Sequence[BaseModel]]]
    ) -> None:
        """Create and fill several tables: {name: (model, primary key or None, rows)}."""
        for name, (model, key, rows) in tables.items():
            self.create_table(name, model, key)
            self.insert(name, rows)

    def query(self, table: str, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Rows of a SELECT as dicts; JSON columns of `table` are decoded."""
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        json_cols = self._json_cols.get(table, set())
        out = []
        for row in rows:
            d = dict(row)
            for c in json_cols & d.keys():
                if isinstance(d[c], str):
                    d[c] = json.loads(d[c])
            out.append(d)
        return out

    def one(self, table: str, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        rows = self.query(table, sql, params)
        return rows[0] if rows else None

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self._lock:
            self._conn.execute(sql, params)
            self._conn.commit()

    def close(self) -> None:
        with self._lock:
            self._conn.close()
