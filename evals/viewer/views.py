"""Rollout summaries, per-step panels and the first divergence of two runs (WebRider Table 60,
Table 61's step/action/evidence reading, Table 16's success vs access vs runtime labels)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from contracts.actions import ActionAST
from contracts.observation import Observation
from contracts.step_row import Gates, StepRow
from evals.live.pairing import episode_of
from evals.viewer.reader import RolloutData, RunReader, TraceError

GATE_NAMES = ("terminal", "hard", "evidence", "answer", "blocker")


class RolloutSummary(BaseModel):
    run: int
    rollout_id: str
    contract_id: str
    task: str = ""
    seed: int | None = None
    persona: str = ""
    attempt: int = 0
    status: str = Field(description="success | fail | access | runtime | running")
    terminal: str = ""
    gates: dict[str, bool] | None = None
    gate_reasons: list[str] = Field(default_factory=list)
    cgs: bool | None = None
    access_failure: str | None = None
    runtime_failure: str | None = None
    steps: int = 0
    duration_s: float | None = None
    errors: int = 0


def _attempt(rollout_id: str) -> int:
    tail = rollout_id.rsplit("@", 1)
    return int(tail[1]) if len(tail) == 2 and tail[1].isdigit() else 0


def summarize(run: int, ro: RolloutData) -> RolloutSummary:
    steps = ro.ordered_steps()
    ref = ro.outcome.contract if ro.outcome else (steps[0].contract if steps else None)
    base: dict[str, Any] = {
        "run": run,
        "rollout_id": ro.rollout_id,
        "contract_id": ref.contract_id if ref else ro.rollout_id.rsplit("@", 1)[0],
        "persona": ref.persona if ref else "",
        "attempt": _attempt(ro.rollout_id),
        "steps": len(steps),
        "errors": len(ro.errors),
    }
    o = ro.outcome
    if o is None:
        return RolloutSummary(**base, status="running")
    ep = episode_of(o)
    status = (
        "access"
        if ep.access_blocked
        else "runtime"
        if ep.runtime_failure
        else "success"
        if ep.success
        else "fail"
    )
    return RolloutSummary(
        **{**base, "steps": max(o.steps, len(steps))},
        task=o.task,
        seed=o.seed,
        status=status,
        terminal=o.terminal,
        gates=_gates(o.gates),
        # Gate scorers may say why a gate failed (a `reasons` list); shown when present.
        gate_reasons=[str(r) for r in getattr(o.gates, "reasons", None) or []],
        cgs=o.gates.cgs if o.gates else None,
        access_failure=o.access_failure.value if o.access_failure else None,
        runtime_failure=o.runtime_failure,
        duration_s=o.duration_s,
    )


def _gates(g: Gates | None) -> dict[str, bool] | None:
    return None if g is None else {k: bool(getattr(g, k)) for k in GATE_NAMES}


def describe(ast: ActionAST | None, obs: Observation, fallback: bool = False) -> str:
    """An action in words, with its target's visible text: click [2] checkbox "DeG"."""
    if ast is None:
        return "no action"
    a = ast.fallback if fallback else ast.action
    parts = [a.type]
    target = getattr(a, "target", None)
    if isinstance(target, int):
        el = obs.label(target)
        parts.append(f"[{target}]")
        if el is not None:
            parts.append(f'{el.role} "{el.text[:60]}"' if el.text else el.role)
    elif target == "window":
        parts.append("window")
    for key in ("direction", "text", "query", "location", "reason"):
        val = getattr(a, key, None)
        if val and not (key == "reason" and a.type not in ("back", "wait")):
            parts.append(f'{key}="{val}"' if key in ("text", "query", "location") else str(val))
    if a.type == "wait":
        parts.append(f"{a.seconds:g}s")
    return " ".join(parts)


def signature(step: StepRow) -> tuple[Any, ...]:
    """What a step did, in terms comparable across runs of the same contract: the top's
    decision when it finalized, else the post-guard action with its target's visible text
    (label numbers are page-local, so the text is what identifies the element)."""
    if step.top.is_terminal:
        return ("decision", step.top.decision, step.top.answer or "")
    if step.action is None:
        return ("none", step.outcome.status)
    a = step.action.action
    target = getattr(a, "target", None)
    el = step.observation.label(target) if isinstance(target, int) else None
    where = (el.role, el.text) if el is not None else target
    extra = tuple(str(getattr(a, k, "")) for k in ("text", "query", "direction"))
    return (a.type, where, *extra, step.outcome.executed)


def first_divergence(a: list[StepRow], b: list[StepRow]) -> int | None:
    """Step index where two rollouts first differ (or one has no such step); None if equal."""
    by_a = {s.step_index: s for s in a}
    by_b = {s.step_index: s for s in b}
    for i in range(max([*by_a, *by_b], default=-1) + 1):
        sa, sb = by_a.get(i), by_b.get(i)
        if sa is None and sb is None:
            continue
        if sa is None or sb is None or signature(sa) != signature(sb):
            return i
    return None


def _observed(nxt: StepRow | None, cur: StepRow, summary: RolloutSummary) -> dict[str, Any]:
    if nxt is None:
        end = summary.terminal or "not finished yet"
        return {"final": True, "text": f"rollout ended: {end}", "reward": cur.outcome.reward}
    o, p = nxt.observation, cur.observation
    return {
        "final": False,
        "url": o.url,
        "url_changed": o.url != p.url,
        "title": o.title,
        "state_changed": o.state_hash != p.state_hash,
        "page_head": " / ".join(ln for ln in o.page_text.splitlines()[:3] if ln.strip())[:240],
        "error": o.error,
    }


def step_panels(
    reader: RunReader, ro: RolloutData, summary: RolloutSummary
) -> tuple[list[dict[str, Any]], list[TraceError]]:
    """One template-ready panel per step and the rollout's read errors (events included)."""
    steps = ro.ordered_steps()
    events, event_errors = reader.events(ro.rollout_id)
    panels = []
    for i, s in enumerate(steps):
        nxt = steps[i + 1] if i + 1 < len(steps) else None
        shot = s.observation.screenshot
        shot_ok = bool(shot) and reader.file_path(shot) is not None
        panels.append(
            {
                "row": s,
                "index": s.step_index,
                "gap": i > 0 and s.step_index != steps[i - 1].step_index + 1,
                "screenshot": shot if shot_ok else None,
                "screenshot_missing": shot if shot and not shot_ok else None,
                "action_text": describe(s.action, s.observation),
                "fallback_text": describe(s.action, s.observation, fallback=True),
                "guard_labels": s.guard.labels() if s.guard else [],
                "action_json": s.action.model_dump_json(indent=1) if s.action else "",
                "events": events.get(s.step_index, []),
                "observed": _observed(nxt, s, summary),
            }
        )
    return panels, [*ro.errors, *event_errors]
