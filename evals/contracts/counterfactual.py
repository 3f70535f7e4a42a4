"""Same-base-task counterfactuals: WebRider Appendix C, "Counterfactual trajectory statistics" and
Table 14. Rollouts of one base task differ only in persona policy; an action signature is the
ordered sequence of normalized action kinds ending in the top's terminal decision."""

from __future__ import annotations

import itertools
import statistics
from collections import Counter, defaultdict
from typing import Any

from contracts.step_row import RolloutOutcome, StepRow


def signature(steps: list[StepRow]) -> tuple[str, ...]:
    """e.g. ('search', 'click', 'click', 'back', 'answer'): what ran, then how it ended."""
    out: list[str] = []
    for s in sorted(steps, key=lambda r: r.step_index):
        if s.action is None:
            out.append(s.top.decision if s.top.is_terminal else "blocked")
        elif s.outcome.executed == "fallback":
            out.append(s.action.fallback.type)
        elif s.outcome.executed == "action":
            out.append(s.action.action.type)
    return tuple(out)


def counterfactuals(
    outcomes: list[RolloutOutcome], steps: dict[str, list[StepRow]]
) -> dict[str, Any]:
    """Table 14 columns over base-task groups (rollout_id -> its step rows in `steps`)."""
    groups: dict[str, list[RolloutOutcome]] = defaultdict(list)
    for o in outcomes:
        groups[o.contract.base_task_id].append(o)
    uniq, divergent, diversity, spread = [], [], [], []
    pairs = switches = 0
    for outs in groups.values():
        sigs = Counter(signature(steps.get(o.rollout_id, [])) for o in outs)
        n = len(outs)
        uniq.append(len(sigs))
        divergent.append(len(sigs) > 1)
        diversity.append(1 - max(sigs.values()) / n)
        passes = [bool(o.gates and o.gates.cgs) for o in outs]
        spread.append(any(passes) and not all(passes))
        for a, b in itertools.combinations(passes, 2):
            pairs += 1
            switches += a != b
    g = len(groups)
    return {
        "groups": g,
        "policies_per_group": len(outcomes) / g if g else None,
        "unique_signatures": statistics.fmean(uniq) if g else None,
        "divergent_share": sum(divergent) / g if g else None,
        "diversity_index": statistics.fmean(diversity) if g else None,
        "cgs_spread_share": sum(spread) / g if g else None,
        "within_group_pairs": pairs,
        "pair_switch_share": switches / pairs if pairs else None,
    }
