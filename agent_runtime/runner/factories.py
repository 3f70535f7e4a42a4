"""Per-worker resources: one browser, the environment episodes and fresh top/middle layers."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_runtime.middle.base import MiddlePolicy
from agent_runtime.runner.config import RunConfig
from agent_runtime.runner.episode import Episode, StepResult
from agent_runtime.top.base import TopLayer
from contracts.actions import ActionAST
from contracts.intent import IntentContract
from contracts.observation import Observation
from contracts.secrets import SecretStore
from envs.base import TaskStatus, WebTask


class BrowserEpisode:
    """A WebTask on a live page, seen through the Executor (labels, screenshots, events)."""

    def __init__(
        self, page: Any, task: WebTask, seed: int, contract: IntentContract | None = None
    ) -> None:
        from agent_runtime.browser.executor import Executor

        self.page, self.task, self.seed = page, task, seed
        provider = getattr(task, "search_provider", None)
        self.secrets = contract.secret_store() if contract is not None else SecretStore()
        self.executor = Executor(
            page,
            provider() if provider is not None else None,
            async_screenshots=False,
            secrets=self.secrets,
            secret_labels=tuple(contract.secret_fields) if contract is not None else (),
        )

    def reset(self) -> str:
        setup = self.task.setup(self.page, self.seed)
        for name, value in setup.secrets.items():
            self.secrets.add(name, value)
        self.executor.events.drain()  # the reset's own navigation is not a user event
        return self.secrets.redact(setup.goal)

    def observe(self, screenshot: Path | None) -> tuple[Observation, bytes | None]:
        obs = self.executor.observe(screenshot)
        png = screenshot.read_bytes() if screenshot is not None and screenshot.exists() else None
        return obs, png

    def execute(self, ast: ActionAST) -> StepResult:
        r = self.executor.execute(ast)
        return StepResult(executed=r.executed, ok=r.ok, error=r.error or r.primary_error)

    def status(self) -> TaskStatus:
        return self.task.validate(self.page)

    def score(self, steps: list[Any], terminal: str, answer: str | None) -> Any:
        """Contract gates when the task scores them (contract sites); None for page-scored tasks."""
        scorer = getattr(self.task, "score", None)
        return scorer(steps, terminal, answer) if scorer is not None else None

    def drain_events(self) -> list[dict[str, Any]]:
        return [e.model_dump(mode="json") for e in self.executor.events.drain()]

    def close(self) -> None:
        self.task.teardown(self.page)
        self.executor.close()


def make_task(contract: IntentContract) -> WebTask:
    env = contract.env
    if env.kind == "miniwob":
        from envs.miniwob.task import MiniWoBTask

        if not env.task:
            raise ValueError(f"contract {contract.contract_id}: env.task is required for miniwob")
        return MiniWoBTask(env.task)
    if env.kind == "local_site":
        from envs.sites.task import ContractSiteTask

        return ContractSiteTask(contract)
    raise NotImplementedError(
        f"contract {contract.contract_id}: env kind {env.kind!r} has no runner task "
        "(live URLs need a hosted deployment; local_site and miniwob run here)"
    )


def make_layers(
    cfg: RunConfig, contract: IntentContract | None = None
) -> tuple[TopLayer, MiddlePolicy]:
    if cfg.top.kind == "llm":
        from agent_runtime.top.llm_top import LLMTop

        top: TopLayer = LLMTop.from_env()
    elif contract is not None and contract.env.kind == "local_site":
        from agent_runtime.top.contract_top import ContractTop

        top = ContractTop()
    else:
        from agent_runtime.top.rule_top import RuleTop

        top = RuleTop()
    if cfg.middle.kind == "endpoint":
        from agent_runtime.middle.endpoint import EndpointMiddle
        from agent_runtime.middle.format import get_format

        ep = cfg.middle.endpoint
        assert ep is not None  # MiddleSpec's validator
        middle: MiddlePolicy = EndpointMiddle(
            ep.url,
            ep.model,
            ep.key(),
            vision=bool(cfg.middle.vision),
            temperature=cfg.middle.temperature,
            grounded_schema=cfg.middle.grounded_schema,
            fmt=get_format(cfg.middle.format_name),
        )
    else:
        from agent_runtime.middle.heuristic import HeuristicMiddle

        middle = HeuristicMiddle()
    return top, middle


class WorkerResources:
    """Owns one headless Chromium for a worker thread; `recover()` restarts it after a crash."""

    def __init__(self, cfg: RunConfig) -> None:
        self.cfg = cfg
        self._session: Any = None

    def __enter__(self) -> WorkerResources:
        self._start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._session is not None:
            self._session.close()

    def _start(self) -> None:
        from agent_runtime.browser.launch import BrowserSession

        self._session = BrowserSession().__enter__()
        self._session.context.set_default_timeout(15_000)

    def recover(self) -> None:
        with contextlib.suppress(Exception):
            self._session.close()
        self._start()

    def make_episode(self, contract: IntentContract) -> Episode:
        page = self._session.page
        if page.is_closed():
            self.recover()
            page = self._session.page
        return BrowserEpisode(page, make_task(contract), contract.env.seed or 0, contract)

    def layers(self, contract: IntentContract | None = None) -> tuple[TopLayer, MiddlePolicy]:
        return make_layers(self.cfg, contract)


def ready(cfg: RunConfig) -> RunConfig:
    """`cfg` with its served middle checked (reachable, the API key accepted, the model served)
    and told whether to send screenshots (as given, else as the served model's config says), so
    a wrong key or URL is one error before any browser starts, not a failed step in every row."""
    ep = cfg.middle.endpoint
    if cfg.middle.kind != "endpoint" or ep is None:
        return cfg
    ep.check()
    if cfg.middle.vision is not None:
        return cfg
    vision = bool(ep.served_vision())  # a model whose config cannot be read gets text
    return cfg.model_copy(update={"middle": cfg.middle.model_copy(update={"vision": vision})})


def resources_for(cfg: RunConfig, contracts: list[IntentContract]) -> Callable[[], WorkerResources]:
    """Each worker's resources (give it the config from `ready`); fails before any browser
    starts if a contract cannot run."""
    for c in contracts:
        make_task(c)  # fail before launching any browser if a contract cannot run
    return lambda: WorkerResources(cfg)
