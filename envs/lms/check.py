"""Server-side task checks: OdoBot Section V, success is the side effect in the database.

The target item is found in the seed world (what the environment generated), never from the
page or the agent, and the live database is then read for the row, field, record or flag.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from envs.lms.sections import Action, Section, section
from envs.lms.store import LmsStore
from envs.lms.tasks import BY_ID, TaskInstance
from envs.lms.world import World


class CheckResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ok: bool
    reason: str


def _norm(v: Any) -> str:
    return " ".join(str(v).split()).lower()


def _wanted(act: Action, params: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in act.fields:
        v = params[f.name]
        out[f.name] = (v == "yes") if f.kind == "checkbox" else v
    return out


def _matches(data: dict[str, Any], wanted: dict[str, Any]) -> bool:
    for k, v in wanted.items():
        if isinstance(v, bool):
            if bool(data.get(k)) != v:
                return False
        elif _norm(data.get(k, "")) != _norm(v):
            return False
    return True


def _target_ids(world: World, sec: Section, inst: TaskInstance) -> tuple[int | None, int | None]:
    cid = None
    if sec.scope == "course":
        cid = next(c.id for c in world.courses() if c.data["name"] == inst.params["course"])
    if sec.singleton:
        if sec.key == "settings":
            return cid, cid
        return cid, next(i.id for i in world.items if i.section == sec.key)
    if "item" not in inst.params:
        return cid, None
    item = next(
        i
        for i in world.items
        if i.section == sec.key
        and i.course_id == cid
        and str(i.data.get(sec.title_field)) == inst.params["item"]
    )
    return cid, item.id


def check_task(store: LmsStore, inst: TaskInstance) -> CheckResult:
    tpl = BY_ID[inst.template_id]
    sec = section(tpl.section)
    act = sec.action(tpl.action)
    world = store.world
    cid, item_id = _target_ids(world, sec, inst)
    wanted = _wanted(act, inst.params)
    if act.effect == "create":
        seeded = {i.id for i in world.items}
        rows = [r for r in store.items(sec.key, cid) if r["id"] not in seeded]
        hit = [r for r in rows if _matches(r["data"], wanted)]
        if hit:
            return CheckResult(ok=True, reason=f"{sec.noun} {hit[0]['id']} created")
        return CheckResult(ok=False, reason=f"no new {sec.noun} with {wanted} ({len(rows)} new)")
    assert item_id is not None
    row = store.any_item(item_id)
    if row is None:
        return CheckResult(ok=False, reason=f"{sec.noun} {item_id} missing from the database")
    if act.effect == "delete":
        ok = bool(row["deleted"])
        return CheckResult(ok=ok, reason=f"{sec.noun} {item_id} deleted={ok}")
    if row["deleted"]:
        return CheckResult(ok=False, reason=f"{sec.noun} {item_id} was deleted")
    if act.effect == "update":
        ok = _matches(row["data"], wanted)
        return CheckResult(ok=ok, reason=f"{sec.noun} {item_id} fields {wanted} matched={ok}")
    if act.effect == "flag":
        ok = bool(row["data"].get(act.record))
        return CheckResult(ok=ok, reason=f"{sec.noun} {item_id} {act.record}={ok}")
    recs = store.records(item_id, act.record)
    ok = any(_matches(r["data"], wanted) for r in recs)
    return CheckResult(ok=ok, reason=f"{act.record} on {sec.noun} {item_id}: {len(recs)} found")
