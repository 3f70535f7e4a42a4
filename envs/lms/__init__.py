"""A Canvas-like learning management system on 127.0.0.1 (OdoBot Section V's sandbox).

`LmsEnv` serves one seeded world through the shared webapp framework; the harness resets its
database between tasks and checks each task's side effect in that database.
"""

from __future__ import annotations

from types import TracebackType

from contracts.secrets import SecretStore
from envs.lms.app import build_app
from envs.lms.check import CheckResult, check_task
from envs.lms.store import LmsStore
from envs.lms.tasks import TEMPLATES, TaskInstance, TaskTemplate, make_instances
from envs.lms.world import World, generate_world
from envs.webapp import AppServer

__all__ = [
    "TEMPLATES",
    "CheckResult",
    "LmsEnv",
    "TaskInstance",
    "TaskTemplate",
    "World",
    "generate_world",
    "make_instances",
]


class LmsEnv:
    """The LMS for one world: `url` once entered, `reset()` per task, `check(task)` after."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.store = LmsStore(world)
        self.server = AppServer(build_app(self.store))

    @property
    def url(self) -> str:
        return self.server.url

    def secret_store(self) -> SecretStore:
        """What the executor may type but nobody may see: the signed-in user's password."""
        return SecretStore({"password": self.world.me.password})

    def reset(self) -> None:
        self.store.reset()

    def check(self, task: TaskInstance) -> CheckResult:
        return check_task(self.store, task)

    def __enter__(self) -> LmsEnv:
        self.server.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.stop()
