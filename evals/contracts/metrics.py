"""CGS and its gates over a run: WebRider Eq. 4, Table 16 (gates, Access, Runtime apart) and
Tables 7 / 51 (All, Unblocked / No-block, Clean denominators), plus time per rollout."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from contracts.step_row import RolloutOutcome
from evals.live.pairing import episode_of, run_rates

GATES: tuple[str, ...] = ("terminal", "hard", "evidence", "answer", "blocker")


def gate_rates(
    outcomes: list[RolloutOutcome], *, unblocked: bool = True
) -> dict[str, float | None]:
    """Share of rollouts passing each gate (and CGS); by default over unblocked rollouts."""
    kept = [
        o
        for o in outcomes
        if o.gates is not None and not (unblocked and episode_of(o).access_blocked)
    ]
    out: dict[str, float | None] = {}
    for g in (*GATES, "cgs"):
        vals = [bool(getattr(o.gates, g)) for o in kept]
        out[g] = sum(vals) / len(vals) if vals else None
    return out


def timing(outcomes: list[RolloutOutcome]) -> dict[str, float | None]:
    secs = sorted(o.duration_s for o in outcomes)
    if not secs:
        return {"mean_s": None, "median_s": None, "p95_s": None, "mean_steps": None}
    return {
        "mean_s": statistics.fmean(secs),
        "median_s": statistics.median(secs),
        "p95_s": secs[min(len(secs) - 1, round(0.95 * (len(secs) - 1)))],
        "mean_steps": statistics.fmean(o.steps for o in outcomes),
        "total_s": sum(secs),
    }


def by_slice(
    outcomes: list[RolloutOutcome], key: Callable[[RolloutOutcome], str]
) -> dict[str, Any]:
    groups: dict[str, list[RolloutOutcome]] = defaultdict(list)
    for o in outcomes:
        groups[key(o)].append(o)
    out = {}
    for name, outs in sorted(groups.items()):
        rates = run_rates([episode_of(o) for o in outs])
        out[name] = {
            "n": len(outs),
            "access_blocked": rates["access_blocked"],
            "cgs_all": rates["all"]["rate"],
            "cgs_unblocked": rates["unblocked"]["rate"],
        }
    return out


def summarize(
    outcomes: list[RolloutOutcome], modes: dict[str, str] | None = None
) -> dict[str, Any]:
    """Everything the contract benchmark reports for one run's final outcomes."""
    rates = run_rates([episode_of(o) for o in outcomes])
    modes = modes or {}
    return {
        "rollouts": len(outcomes),
        "cgs": {d: rates[d] for d in ("all", "unblocked", "clean")},
        "access_blocked": rates["access_blocked"],
        "access_rate": rates["access_rate"],
        "runtime_failures": rates["runtime_failures"],
        "access_signals": dict(
            sorted(_count(o.access_failure.value for o in outcomes if o.access_failure).items())
        ),
        "terminals": dict(sorted(_count(o.terminal for o in outcomes).items())),
        "gates_unblocked": gate_rates(outcomes, unblocked=True),
        "gates_all": gate_rates(outcomes, unblocked=False),
        "timing": timing(outcomes),
        "by_site": by_slice(outcomes, lambda o: o.contract.contract_id.split("-")[0]),
        "by_mode": by_slice(outcomes, lambda o: modes.get(o.contract.base_task_id, "?")),
        "by_persona": by_slice(outcomes, lambda o: o.contract.persona),
    }


def _count(items: Any) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for i in items:
        out[str(i)] += 1
    return out
