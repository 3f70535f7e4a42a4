"""The shared local web-app server: loopback binding, free port, refusal of other clients."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from common.localhost import local_host_header
from envs.webapp import AppServer, LoopbackOnly, is_loopback


def _app() -> FastAPI:
    app = FastAPI()

    @app.get("/ping")
    def ping() -> dict[str, str]:
        return {"ok": "pong"}

    return app


def test_serves_on_loopback_free_port_and_stops() -> None:
    with AppServer(_app()) as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert server.port > 0
        assert httpx.get(f"{server.url}/ping").json() == {"ok": "pong"}
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{server.url}/ping", timeout=2)


def test_refuses_clients_not_on_loopback() -> None:
    app = LoopbackOnly(_app())
    far = TestClient(app, client=("10.0.0.7", 5000))
    assert far.get("/ping").status_code == 403
    near = TestClient(app, client=("127.0.0.1", 5000), base_url="http://127.0.0.1:5000")
    assert near.get("/ping").status_code == 200


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("127.0.0.1", True),
        ("127.4.5.6", True),
        ("::1", True),
        ("192.168.1.2", False),
        ("testclient", False),
        (None, False),
    ],
)
def test_is_loopback(host: str | None, ok: bool) -> None:
    assert is_loopback(host) is ok


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("127.0.0.1:8000", True),
        ("localhost", True),
        ("LOCALHOST:1", True),
        ("[::1]:9", True),
        ("127.0.0.1.", True),
        ("evil.example", False),
        ("evil.example:8000", False),
        ("127.0.0.1.evil.example", False),
        ("localhost.evil.example", False),
        ("127.0.0.1:notaport", False),
        ("", False),
        (None, False),
    ],
)
def test_host_header_names_this_machine(host: str | None, ok: bool) -> None:
    assert local_host_header(host) is ok


def _local_apps(tmp_path: Path) -> dict[str, Any]:
    """Every local app the project serves through AppServer, as its command builds it."""
    from envs.catalog.server import serve as serve_catalog
    from envs.catalog.synth.build import build_synth
    from envs.lms import LmsEnv, generate_world
    from envs.sites.app import build_app as build_site
    from envs.sites.world import generate_world as site_world
    from evals.audit.app import create_app as audit_app
    from evals.viewer.app import create_app as viewer_app
    from pathwise.cli import app as cli
    from tests.helpers.viewer_runs import FIXTURE

    study = tmp_path / "study.sqlite"
    arms = ["--arms", str(FIXTURE / "perturbed"), str(FIXTURE / "teacher"), "--out", str(study)]
    sizes = ["--pairs", "2", "--anchors", "0", "--raters", "2"]
    r = CliRunner().invoke(cli, ["audit", "create", *arms, *sizes])
    assert r.exit_code == 0, r.output
    build_synth("courseleaf", 5, tmp_path / "catalog")
    return {
        "viewer": lambda: AppServer(viewer_app([FIXTURE / "teacher"])),
        "audit": lambda: AppServer(audit_app(study)),
        "site": lambda: AppServer(build_site(site_world().sites["shop"])),
        "lms": lambda: LmsEnv(generate_world(1)).server,
        "catalog gate": lambda: serve_catalog(tmp_path / "catalog" / "site")[0],
    }


def test_every_local_app_refuses_foreign_hosts_and_origins(tmp_path: Path) -> None:
    for name, make in _local_apps(tmp_path).items():
        with make() as server:
            port = server.port
            ok = httpx.get(server.url + "/", headers={"Host": f"localhost:{port}"})
            assert not ok.text.startswith("forbidden"), name  # the app's own answer
            rebound = httpx.get(server.url + "/", headers={"Host": f"evil.example:{port}"})
            assert rebound.status_code == 403 and "Host" in rebound.text, name
            post = httpx.post(
                server.url + "/", headers={"Origin": "http://evil.example"}, data={"a": "1"}
            )
            assert post.status_code == 403 and "cross-origin" in post.text, name
            local = httpx.post(server.url + "/", headers={"Origin": server.url}, data={"a": "1"})
            assert not local.text.startswith("forbidden"), name


def test_static_and_model_servers_refuse_foreign_hosts(tmp_path: Path) -> None:
    from envs.server import StaticServer

    (tmp_path / "index.html").write_text("<p>hi</p>")
    with StaticServer(tmp_path) as server:
        assert httpx.get(server.url + "/index.html").status_code == 200
        bad = httpx.get(server.url + "/index.html", headers={"Host": "evil.example"})
        assert bad.status_code == 403
        post = httpx.post(server.url + "/x", headers={"Origin": "http://evil.example"})
        assert post.status_code == 403
