"""Local fixture sites (search, maps, form, tabs, login wall, CAPTCHA, 403/429) on 127.0.0.1."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from envs.server import StaticServer

# Pages served with a forced status so access-signal guards see real HTTP 403/429.
STATUS_ROUTES = {"/blocked.html": 403, "/rate-limited.html": 429}


def local_sites_root() -> Path:
    return Path(str(resources.files("tests.helpers.local_sites").joinpath("site")))


def local_sites_server() -> StaticServer:
    """An (unstarted) server for the fixture site; use it as a context manager."""
    return StaticServer(local_sites_root(), status_routes=STATUS_ROUTES)
