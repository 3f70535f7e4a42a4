"""One guarded rollout: top -> middle -> guards -> executor, one step row per browser step.

WebRider "Hierarchical Controller" and Appendix H, Tables 42-46: the middle's raw text
reaches the browser only through the guard compiler; the top alone finalizes; every
step is written (and flushed) before the next one starts.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path

from agent_runtime.guards import compile_action
from agent_runtime.middle.base import MiddleInput, MiddlePolicy
from agent_runtime.runner.config import RunConfig
from agent_runtime.runner.episode import Episode
from agent_runtime.runner.traces import EVENTS_DIR, SCREENSHOTS_DIR, TraceWriter
from agent_runtime.top.base import TopLayer
from contracts.history import RecentHistory
from contracts.intent import IntentContract
from contracts.step_row import (
    ContractRef,
    Gates,
    RolloutOutcome,
    StepOutcome,
    StepRow,
    Verification,
)


def contract_ref(contract: IntentContract) -> ContractRef:
    return ContractRef(
        contract_id=contract.contract_id,
        base_task_id=contract.base_task_id,
        sha256=contract.sha256(),
        persona=contract.persona.name,
    )


def safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def run_rollout(
    contract: IntentContract,
    make_episode: Callable[[IntentContract], Episode],
    top: TopLayer,
    middle: MiddlePolicy,
    cfg: RunConfig,
    writer: TraceWriter,
    run_dir: Path,
    attempt: int = 0,
) -> RolloutOutcome:
    """Run one contract to a terminal label; never raises (a crash becomes runtime_failure)."""
    rollout_id = f"{contract.contract_id}@{attempt}"
    ref = contract_ref(contract)
    shot_dir = run_dir / SCREENSHOTS_DIR / safe_name(rollout_id)
    events_path = run_dir / EVENTS_DIR / f"{safe_name(rollout_id)}.jsonl"
    t0 = time.monotonic()
    history = RecentHistory()
    terminal = "step_cap"
    runtime_failure: str | None = None
    access = None
    steps = 0
    reward = raw_reward = None
    episode: Episode | None = None
    rows: list[StepRow] = []
    final_answer: str | None = None
    redact = contract.secret_store().redact
    try:
        episode = make_episode(contract)
        secrets = getattr(episode, "secrets", None) or contract.secret_store()
        redact = secrets.redact
        goal = episode.reset()
        top.start(contract, goal)
        for step in range(cfg.step_cap):
            if time.monotonic() - t0 > cfg.timeout_s:
                terminal = "timeout"
                break
            t_step = time.monotonic()
            shot = shot_dir / f"step-{step:03d}.png" if cfg.screenshots else None
            obs, png = episode.observe(shot)
            if shot is not None and shot.exists():
                obs = obs.model_copy(update={"screenshot": str(shot.relative_to(run_dir))})
            state = top.step(obs, history)
            base = {
                "rollout_id": rollout_id,
                "step_index": step,
                "contract": ref,
                "top": state,
                "observation": obs,
                "history": history,
                "middle_policy": getattr(middle, "name", type(middle).__name__),
            }
            if state.is_terminal:
                verification = Verification(
                    allow_answer=state.decision == "answer",
                    evidence_sufficient=not state.missing_evidence,
                    missing_obligations=list(state.missing_evidence),
                    decision="answer" if state.decision == "answer" else "fail",
                )
                final = StepRow(
                    **base,
                    verification=verification,
                    outcome=StepOutcome(status="no_action", executed="none"),
                )
                writer.write(final, redact)
                rows.append(final)
                final_answer = state.answer
                terminal = state.decision
                if state.decision == "block" and obs.access_signal is not None:
                    # The top stopped at a wall: an external-access failure, never bypassed.
                    access = obs.access_signal
                    terminal = "access_failure"
                steps = step + 1
                break
            out = middle.propose(
                MiddleInput(
                    top=state,
                    observation=obs,
                    history=history,
                    persona=contract.persona.name,
                    persona_criterion=contract.persona.criterion,
                    protected_constraints=state.active_constraints,
                    geographic=contract.geographic,
                    screenshot_png=png,
                )
            )
            compiled = compile_action(
                out.raw,
                obs,
                history,
                geographic=contract.geographic,
                allow_sensitive=None
                if contract.env.kind == "miniwob"
                else contract.allow_sensitive,
            )
            row = StepRow(
                **base,
                middle_raw=out.raw,
                middle_confidence=out.confidence,
                middle_usage=out.usage,
                action=compiled.action,
                guard=compiled.report,
            )
            if compiled.action is None:
                # External access: automation stops here and the block is never bypassed.
                access = compiled.report.external_access
                row.outcome = StepOutcome(
                    status="access_blocked",
                    executed="none",
                    duration_ms=(time.monotonic() - t_step) * 1e3,
                )
                row.verification = Verification(decision="fail")
                writer.write(row, redact)
                rows.append(row)
                terminal = "access_failure"
                steps = step + 1
                break
            result = episode.execute(compiled.action)
            status = episode.status()
            reward, raw_reward = status.reward, status.raw_reward
            row.outcome = StepOutcome(
                status="ok" if result.ok else "action_failed",
                error=result.error,
                executed=result.executed,  # type: ignore[arg-type]
                reward=status.raw_reward,
                done=status.done,
                duration_ms=(time.monotonic() - t_step) * 1e3,
            )
            row.verification = Verification(
                decision="continue" if result.ok else "recover",
                missing_obligations=list(state.missing_evidence),
            )
            writer.write(row, redact)
            rows.append(row)
            _append_events(events_path, step, episode.drain_events(), redact)
            executed = (
                compiled.action.action if result.executed == "action" else compiled.action.fallback
            )
            history = history.executed(
                step, obs.url, obs.state_hash, executed, result.ok, result.error
            )
            steps = step + 1
            if status.done:
                terminal = "env_done"
                break
    except Exception as e:  # a crashed browser or page must not take the batch down
        terminal = "runtime_failure"
        runtime_failure = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    finally:
        if episode is not None:
            with contextlib.suppress(Exception):
                episode.close()
    success = terminal == "env_done" and raw_reward is not None and raw_reward >= 1.0
    gates = Gates(
        terminal=terminal == "env_done",
        hard=success,
        evidence=terminal == "env_done",
        answer=terminal == "env_done",
        blocker=access is None,
    )
    scored = _score(episode, rows, terminal, final_answer)
    if scored is not None:
        gates = scored
        success = gates.cgs and access is None and terminal == "answer"
    outcome = RolloutOutcome(
        rollout_id=rollout_id,
        contract=ref,
        env=contract.env.kind,
        task=contract.env.task or "",
        seed=contract.env.seed,
        policy=cfg.policy_name(),
        attempt=attempt,
        success=success,
        reward=reward,
        raw_reward=raw_reward,
        terminal=terminal,  # type: ignore[arg-type]
        gates=gates,
        access_failure=access,
        runtime_failure=runtime_failure,
        steps=steps,
        duration_s=time.monotonic() - t0,
    )
    writer.write(outcome, redact)
    return outcome


def _score(
    episode: Episode | None, rows: list[StepRow], terminal: str, answer: str | None
) -> Gates | None:
    """Eq. 4 gates from the environment's scorer (contract sites); None for page-scored tasks."""
    scorer = getattr(episode, "score", None)
    if scorer is None:
        return None
    try:
        return scorer(rows, terminal, answer)
    except Exception as e:  # a scoring bug must not lose the rollout: record it as a reason
        return Gates(reasons=[f"scoring error: {type(e).__name__}: {e}"])


def _append_events(path: Path, step: int, events: list[dict], redact: Callable[[str], str]) -> None:
    if not events:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        for ev in events:
            fh.write(redact(json.dumps({"step_index": step, **ev}, default=str)) + "\n")
