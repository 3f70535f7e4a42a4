"""The LMS's REST side effects, checked in its database (never on a page)."""

from __future__ import annotations

import random

import pytest
from fastapi.testclient import TestClient

from envs.lms import TEMPLATES, generate_world, make_instances
from envs.lms.app import build_app
from envs.lms.check import check_task
from envs.lms.store import LmsStore
from envs.lms.tasks import BY_ID, instantiate
from envs.webapp.server import LoopbackOnly


@pytest.fixture
def lms() -> tuple[LmsStore, TestClient]:
    store = LmsStore(generate_world(3))
    app = build_app(store)
    client = TestClient(app, client=("127.0.0.1", 5000))
    me = store.world.me
    r = client.post("/api/v1/login", json={"username": me.login, "password": me.password})
    assert r.status_code == 200
    return store, client


def _task(store: LmsStore, template: str):
    return instantiate(BY_ID[template], store.world, random.Random(1), set(), "t")


def test_sixty_templates_each_instantiable() -> None:
    world = generate_world(4)
    insts = make_instances(world, 4)
    assert len(TEMPLATES) == 60 and len({t.id for t in TEMPLATES}) == 60
    assert all("{" not in i.text for i in insts)


def test_create_discussion_is_checked_in_the_database(lms) -> None:
    store, client = lms
    task = _task(store, "disc_new_threaded")
    cid = next(c.id for c in store.world.courses() if c.data["name"] == task.params["course"])
    assert not check_task(store, task).ok
    body = {"title": task.params["title"], "message": task.params["message"], "threaded": False}
    r = client.post(f"/api/v1/courses/{cid}/discussions", json=body)
    assert r.status_code == 200 and r.json()["next"].startswith(f"/courses/{cid}/discussions/")
    # Created, but without threaded replies: the check reads the row, so it still fails.
    assert not check_task(store, task).ok
    client.post(f"/api/v1/courses/{cid}/discussions", json=body | {"threaded": True})
    assert check_task(store, task).ok


def test_update_record_flag_delete_and_validation(lms) -> None:
    store, client = lms
    due = _task(store, "asg_due")
    cid = next(c.id for c in store.world.courses() if c.data["name"] == due.params["course"])
    aid = next(i.id for i in store.world.items if i.data.get("name") == due.params["item"])
    base = f"/api/v1/courses/{cid}/assignments/{aid}"
    assert client.put(f"{base}/due", json={}).status_code == 422  # "Due date is required"
    assert client.post(f"{base}/due", json={"due_at": "x"}).status_code == 405
    assert client.put(f"{base}/due", json={"due_at": due.params["due_at"]}).status_code == 200
    assert check_task(store, due).ok
    client.post(f"{base}/submit", json={"body": "My essay"})
    assert store.records(aid, "submit")[0]["data"] == {"body": "My essay"}
    client.post(f"{base}/comment", json={"comment": "Done"})
    assert client.delete(base).status_code == 200
    assert store.any_item(aid)["deleted"] and store.item(aid) is None
    store.reset()  # a fresh environment per task
    assert store.item(aid) is not None and not check_task(store, due).ok


def test_api_refuses_anonymous_and_remote_clients() -> None:
    store = LmsStore(generate_world(3))
    anon = TestClient(build_app(store), client=("127.0.0.1", 5000))
    cid = store.world.courses()[0].id
    assert anon.post(f"/api/v1/courses/{cid}/modules", json={"name": "x"}).status_code == 401
    assert anon.get("/dashboard", follow_redirects=False).status_code == 303
    remote = TestClient(LoopbackOnly(build_app(store)), client=("10.0.0.5", 5000))
    assert remote.get("/login").status_code == 403


def test_heldout_values_were_never_demonstrated() -> None:
    from odobot.pipeline import OdoConfig, demo_instances, heldout_instances

    cfg = OdoConfig()
    demo_world, demos = demo_instances(cfg)
    test_world, tests = heldout_instances(cfg)
    skip = {"username", "password", "course", "item", "role", "visibility", "time_zone",
            "language", "pronouns", "answer", "student", "page", "assignment", "recipient",
            "threaded", "pinned", "delayed", "published", "email_notifications"}  # fmt: skip
    seen = {v for d in demos for k, v in d.params.items() if k not in skip}
    fresh = [v for t in tests for k, v in t.params.items() if k not in skip]
    assert fresh and not seen & set(fresh)
    assert test_world.layout.banner and not demo_world.layout.banner
    assert {c.data["name"] for c in demo_world.courses()} != {
        c.data["name"] for c in test_world.courses()
    }
