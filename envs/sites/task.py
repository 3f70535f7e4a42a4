"""A contract-site contract as a WebTask (after BrowserGym's four hooks) plus its scorer.

setup clears cookies (no state leaks between rollouts) and opens the start page; the site never
reports "done": the top layer alone finalizes, and `score` applies Eq. 4's gates afterwards.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from contracts.intent import IntentContract
from contracts.search import SearchProvider
from contracts.step_row import Gates, StepRow
from envs.base import TaskSetup, TaskStatus, WebTask
from envs.sites import gates
from envs.sites.runtime import SiteWorld, shared_world

LOAD_TIMEOUT_MS = 10_000


class ContractSiteTask(WebTask):
    def __init__(
        self, contract: IntentContract, world: SiteWorld | None = None, data: Path | None = None
    ) -> None:
        env = contract.env
        if env.kind != "local_site" or not env.site or not env.task:
            raise ValueError(
                f"contract {contract.contract_id}: env needs kind local_site, site and task"
            )
        self.contract = contract
        if data is None and os.environ.get("PATHWISE_SITES_DATA"):
            data = Path(os.environ["PATHWISE_SITES_DATA"])  # a world.json instead of the seed
        self.world = world or shared_world(env.seed or 0, data)
        if env.site not in self.world.world.sites:
            raise ValueError(
                f"contract {contract.contract_id}: field 'env.site': unknown site {env.site!r}"
            )
        self.base = self.world.world.task(env.task)
        self.site = self.world.world.sites[env.site]
        self.gold = self.world.world.gold[env.task]

    @property
    def start_url(self) -> str:
        return self.world.urls[self.site.name] + (self.contract.env.start_url or "/")

    def setup(self, page: Any, seed: int) -> TaskSetup:
        page.context.clear_cookies()
        for attempt in range(3):
            try:
                page.goto(self.start_url, wait_until="domcontentloaded")
                break
            except Exception as e:
                # The previous rollout's last click may still be navigating: let it land.
                if attempt == 2 or "interrupted" not in str(e):
                    raise
                page.wait_for_load_state("domcontentloaded")
        return TaskSetup(
            goal=self.contract.request, info={"site": self.site.name, "task": self.base.id}
        )

    def validate(self, page: Any) -> TaskStatus:
        # A click that navigates returns before the next document is parsed; observing then
        # would read half a page. Let the document finish loading (bounded) first.
        with contextlib.suppress(Exception):
            page.wait_for_load_state("load", timeout=LOAD_TIMEOUT_MS)
        return TaskStatus(done=False, reason="the top layer decides when to finish")

    def teardown(self, page: Any) -> None:
        return None

    def site_key(self) -> str:
        return f"site/{self.site.name}"

    def search_provider(self) -> SearchProvider:
        return self.world.provider()

    def score(self, steps: Sequence[StepRow], terminal: str, answer: str | None) -> Gates:
        return gates.score(self.contract, self.site, self.gold, steps, terminal, answer)
