"""A Pathwise environment as a gymnasium.Env: WebRider Appendix H, Tables 42-46, as one loop.

reset() starts a contract's episode in headless Chromium and returns the observation; step()
takes an Action AST (model, dict or raw JSON text), compiles it through the same guards as the
runner (their labels come back in info), executes it and returns observation, reward,
terminated, truncated, info. Finalization stays the top's: a contract-site episode ends when
step() receives a terminal decision {"decision": "answer"|"ask"|"stop"|"block", "answer": ...},
scored by Eq. 4's gates (reward 1.0 when contract-gated success holds). An access wall ends the
episode with its label; nothing bypasses it.
"""

from __future__ import annotations

import json
import random
from typing import Any, ClassVar

import gymnasium
from pydantic import BaseModel

from agent_runtime.guards import compile_action
from contracts.actions import ActionAST
from contracts.history import RecentAction, RecentHistory
from contracts.intent import IntentContract
from contracts.observation import Observation
from contracts.step_row import ContractRef, StepOutcome, StepRow
from contracts.top_state import TERMINAL_DECISIONS, TopState


class ModelSpace(gymnasium.Space):  # type: ignore[type-arg]
    """A space of documents valid under a pydantic model (observations, Action ASTs)."""

    def __init__(self, model: type[BaseModel], extra: tuple[str, ...] = ()) -> None:
        super().__init__(shape=None, dtype=None)
        self.model = model
        self.extra = extra  # keys the environment adds beside the model (the goal)

    def contains(self, x: Any) -> bool:
        try:
            if isinstance(x, self.model):
                return True
            if isinstance(x, dict):
                x = {k: v for k, v in x.items() if k not in self.extra}
            self.model.model_validate_json(x) if isinstance(x, str) else self.model.model_validate(
                x
            )
            return True
        except Exception:
            return False

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        raise NotImplementedError("web observations and grounded actions cannot be sampled blindly")


def _site_contracts(site: str, seed: int) -> list[IntentContract]:
    from envs.sites.pairing import world_contracts
    from envs.sites.world import generate_world

    return [c for c in world_contracts(generate_world(seed)) if c.env.site == site]


class PathwiseEnv(gymnasium.Env):  # type: ignore[type-arg]
    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        contract: IntentContract | dict[str, Any] | None = None,
        site: str | None = None,
        miniwob_task: str | None = None,
        world_seed: int = 20260614,
        step_cap: int = 20,
    ) -> None:
        self.observation_space = ModelSpace(Observation, extra=("goal",))
        self.action_space = ModelSpace(ActionAST)
        self._fixed = (
            IntentContract.model_validate(contract) if isinstance(contract, dict) else contract
        )
        self._site, self._task, self._world_seed = site, miniwob_task, world_seed
        self.step_cap = step_cap
        self._session: Any = None
        self._episode: Any = None
        self.contract: IntentContract | None = None

    # -- gymnasium API -------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        from agent_runtime.runner.factories import BrowserEpisode, make_task

        self.contract = self._pick(seed, options or {})
        self._close_episode()
        page = self._browser().page
        self._episode = BrowserEpisode(
            page, make_task(self.contract), self.contract.env.seed or seed or 0, self.contract
        )
        self.goal = self._episode.reset()
        self.history = RecentHistory()
        self.rows: list[StepRow] = []
        self.t = 0
        self.obs, _ = self._episode.observe(None)
        return self._obs(), {"goal": self.goal, "contract_id": self.contract.contract_id}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        assert self._episode is not None and self.contract is not None, "call reset() first"
        c = self.contract
        if isinstance(action, dict) and action.get("decision") in TERMINAL_DECISIONS:
            return self._finish(str(action["decision"]), action.get("answer"))
        raw = (
            action.to_json()
            if isinstance(action, ActionAST)
            else (json.dumps(action) if isinstance(action, dict) else str(action))
        )
        compiled = compile_action(
            raw,
            self.obs,
            self.history,
            geographic=c.geographic,
            allow_sensitive=None if c.env.kind == "miniwob" else c.allow_sensitive,
        )
        info: dict[str, Any] = {
            "guard": compiled.report.labels(),
            "guard_report": compiled.report.model_dump(mode="json"),
        }
        row = self._row(
            TopState(intention="gym step"), action=compiled.action, guard=compiled.report
        )
        if compiled.action is None:
            row.outcome = StepOutcome(status="access_blocked", executed="none")
            self.rows.append(row)
            info["access_failure"] = (
                compiled.report.external_access.value if compiled.report.external_access else None
            )
            return self._obs(), 0.0, True, False, info
        result = self._episode.execute(compiled.action)
        status = self._episode.status()
        row.outcome = StepOutcome(
            status="ok" if result.ok else "action_failed",
            error=result.error,
            executed=result.executed,
            reward=status.raw_reward,
            done=status.done,
        )  # type: ignore[arg-type]
        self.rows.append(row)
        ran = compiled.action.action if result.executed == "action" else compiled.action.fallback
        self.history = self.history.push(
            RecentAction(
                step_index=self.t,
                url=self.obs.url,
                action=ran.model_dump_json(exclude_none=True),
                action_type=ran.type,
                state_hash=self.obs.state_hash,
                ok=result.ok,
            )
        )
        self.t += 1
        self.obs, _ = self._episode.observe(None)
        info.update(executed=result.executed, ok=result.ok, error=result.error)
        terminated = bool(status.done)
        reward = float(status.raw_reward) if c.env.kind == "miniwob" else 0.0
        return self._obs(), reward, terminated, self.t >= self.step_cap and not terminated, info

    def close(self) -> None:
        self._close_episode()
        if self._session is not None:
            self._session.close()
            self._session = None

    # -- internals -----------------------------------------------------------------------------
    def _pick(self, seed: int | None, options: dict[str, Any]) -> IntentContract:
        if "contract" in options:
            c = options["contract"]
            return c if isinstance(c, IntentContract) else IntentContract.model_validate(c)
        if self._fixed is not None:
            return self._fixed
        if self._task is not None:
            from envs.miniwob.contracts import miniwob_contract

            return miniwob_contract(self._task, seed if seed is not None else 0)
        pool = _site_contracts(self._site, self._world_seed) if self._site else []
        if not pool:
            raise ValueError(
                "give a contract (kwarg or options['contract']), a site or a MiniWoB task"
            )
        if "contract_id" in options:
            match = [c for c in pool if c.contract_id == options["contract_id"]]
            if not match:
                raise ValueError(
                    f"unknown contract_id {options['contract_id']!r} for site {self._site}"
                )
            return match[0]
        return random.Random(seed).choice(pool)

    def _finish(
        self, decision: str, answer: Any
    ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        text = answer if isinstance(answer, str) or answer is None else json.dumps(answer)
        self.rows.append(
            self._row(
                TopState(intention="gym finish", decision=decision, answer=text),  # type: ignore[arg-type]
                outcome=StepOutcome(status="no_action", executed="none"),
            )
        )
        gates = self._episode.score(self.rows, decision, text)
        info: dict[str, Any] = {"decision": decision}
        if gates is None:
            return self._obs(), 0.0, True, False, info
        info["gates"] = gates.model_dump()
        info["cgs"] = gates.cgs
        return self._obs(), float(gates.cgs), True, False, info

    def _row(self, top: TopState, **kw: Any) -> StepRow:
        c = self.contract
        assert c is not None
        ref = ContractRef(
            contract_id=c.contract_id,
            base_task_id=c.base_task_id,
            sha256=c.sha256(),
            persona=c.persona.name,
        )
        return StepRow(
            rollout_id=f"{c.contract_id}@gym",
            step_index=len(self.rows),
            contract=ref,
            top=top,
            observation=self.obs,
            history=self.history,
            middle_policy="gym",
            **kw,
        )

    def _obs(self) -> dict[str, Any]:
        return {**self.obs.model_dump(mode="json"), "goal": self.goal}

    def _browser(self) -> Any:
        if self._session is None:
            from agent_runtime.browser.launch import BrowserSession

            self._session = BrowserSession().__enter__()
        return self._session

    def _close_episode(self) -> None:
        if self._episode is not None:
            self._episode.close()
            self._episode = None
