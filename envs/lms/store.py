"""The LMS backend: seeded SQLite tables and the mutations the REST API performs.

Every side effect a task can have lands here (a row inserted, a JSON field updated, a row
marked deleted), so the task checks read the same database the pages are rendered from.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from envs.lms.world import Item, Record, User, World
from envs.webapp import SqliteStore


class LmsStore:
    """One seeded database per world; `reset()` re-seeds it (a fresh environment per task)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._lock = threading.Lock()
        self.db = self._seed()

    def _seed(self) -> SqliteStore:
        db = SqliteStore()
        db.seed(
            {
                "users": (User, "id", self.world.users),
                "items": (Item, "id", [i.model_copy(deep=True) for i in self.world.items]),
                "records": (Record, "id", self.world.records),
            }
        )
        return db

    def reset(self) -> None:
        with self._lock:
            old, self.db = self.db, self._seed()
        old.close()

    # ---- reads -------------------------------------------------------------------------
    def items(self, section: str, course_id: int | None) -> list[dict[str, Any]]:
        if course_id is None:
            sql = "SELECT * FROM items WHERE section=? AND course_id IS NULL AND deleted=0"
            params: list[Any] = [section]
        else:
            sql = "SELECT * FROM items WHERE section=? AND course_id=? AND deleted=0"
            params = [section, course_id]
        return self.db.query("items", sql + " ORDER BY position, id", params)

    def item(self, item_id: int) -> dict[str, Any] | None:
        return self.db.one("items", "SELECT * FROM items WHERE id=? AND deleted=0", [item_id])

    def any_item(self, item_id: int) -> dict[str, Any] | None:
        """An item even if deleted (the checks of delete tasks read this)."""
        return self.db.one("items", "SELECT * FROM items WHERE id=?", [item_id])

    def courses(self) -> list[dict[str, Any]]:
        return self.db.query(
            "items", "SELECT * FROM items WHERE section='settings' AND deleted=0 ORDER BY position"
        )

    def records(self, item_id: int, kind: str | None = None) -> list[dict[str, Any]]:
        if kind is None:
            return self.db.query("records", "SELECT * FROM records WHERE item_id=?", [item_id])
        return self.db.query(
            "records", "SELECT * FROM records WHERE item_id=? AND kind=?", [item_id, kind]
        )

    def user_by_login(self, login: str) -> dict[str, Any] | None:
        return self.db.one("users", "SELECT * FROM users WHERE login=?", [login])

    # ---- writes (the REST API's side effects) ------------------------------------------
    def _next_id(self, table: str) -> int:
        row = self.db.one(table, f"SELECT COALESCE(MAX(id), 0) + 1 AS n FROM {table}")
        return int(row["n"]) if row else 1

    def create(self, section: str, course_id: int | None, data: dict[str, Any]) -> int:
        with self._lock:
            new_id = self._next_id("items")
            pos = self.db.one("items", "SELECT COALESCE(MAX(position), 0) + 1 AS p FROM items")
            item = Item(
                id=new_id,
                section=section,
                course_id=course_id,
                position=float(pos["p"]) if pos else 1.0,
                data=data,
            )
            self.db.insert("items", [item])
        return new_id

    def update(self, item_id: int, data: dict[str, Any]) -> None:
        with self._lock:
            row = self.item(item_id)
            if row is None:
                raise KeyError(item_id)
            merged = {**row["data"], **data}
            self.db.execute(
                "UPDATE items SET data=? WHERE id=?", [json.dumps(merged, sort_keys=True), item_id]
            )

    def delete(self, item_id: int) -> None:
        with self._lock:
            self.db.execute("UPDATE items SET deleted=1 WHERE id=?", [item_id])

    def add_record(self, item_id: int, kind: str, data: dict[str, Any]) -> int:
        with self._lock:
            rid = self._next_id("records")
            self.db.insert("records", [Record(id=rid, item_id=item_id, kind=kind, data=data)])
        return rid
