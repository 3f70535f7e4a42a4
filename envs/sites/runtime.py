"""The contract sites running: four site servers and the search/maps provider on 127.0.0.1.

One process-wide world per seed (or data file), started on first use from daemon threads, so
every worker of a batch reaches the same servers; stopping is explicit (or process exit).
"""

from __future__ import annotations

import threading
from pathlib import Path

from contracts.search import SearchProvider
from envs.sites.app import build_app
from envs.sites.model import World
from envs.sites.search_app import build_search_app
from envs.sites.world import generate_world
from envs.webapp import AppServer, DataFileError, load_model_file


class SiteWorld:
    """Start/stop every site of a `World`; `urls[site]`, `search_url` and `provider()`."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.urls: dict[str, str] = {}
        self.search_url = ""
        self._servers: list[AppServer] = []
        self._apps: dict[str, object] = {}

    def start(self) -> SiteWorld:
        if self._servers:
            return self
        for name, site in self.world.sites.items():
            app = build_app(site)
            server = AppServer(app).start()
            self._servers.append(server)
            self._apps[name] = app
            self.urls[name] = server.url
        search = AppServer(build_search_app(self.world, self.urls)).start()
        self._servers.append(search)
        self.search_url = search.url
        for app in self._apps.values():
            app.state.maps_url = f"{self.search_url}/maps"  # type: ignore[attr-defined]
        return self

    def stop(self) -> None:
        for s in self._servers:
            s.stop()
        self._servers = []

    def provider(self) -> SearchProvider:
        return SearchProvider(
            search_template=self.search_url + "/search?q={query}",
            maps_template=self.search_url + "/maps?q={query}&near={location}",
        )

    def __enter__(self) -> SiteWorld:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_shared: dict[str, SiteWorld] = {}
_lock = threading.Lock()


def load_world(seed: int, data: Path | None = None) -> World:
    """The world of a seed, or of a data file written by `pathwise sites generate`."""
    if data is not None:
        world = load_model_file(data, World)
        if world.seed != seed:
            raise DataFileError(
                f"{data}: field 'seed': {world.seed} does not match the contract's {seed}"
            )
        return world
    return generate_world(seed)


def shared_world(seed: int, data: Path | None = None) -> SiteWorld:
    key = f"{seed}:{data}"
    with _lock:
        if key not in _shared:
            _shared[key] = SiteWorld(load_world(seed, data)).start()
        return _shared[key]
