"""Token accounting: middle-layer prompt/completion tokens summed from step rows (Table 60)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent_runtime.runner.traces import iter_rows, trace_files
from contracts.step_row import RolloutOutcome, StepRow


def usage_totals(rows: Iterable[StepRow | RolloutOutcome | None]) -> dict[str, Any]:
    """Sum middle_usage over step rows; averages are per rollout and per step that reported usage.

    Rollouts are counted by id over every step row, so an episode whose middle reported no
    usage (the heuristic teacher) still counts in the per-episode denominator.
    """
    prompt = completion = steps = steps_with_usage = 0
    rollouts: set[str] = set()
    for row in rows:
        if not isinstance(row, StepRow):
            continue
        steps += 1
        rollouts.add(row.rollout_id)
        if row.middle_usage is not None:
            steps_with_usage += 1
            prompt += row.middle_usage.prompt_tokens
            completion += row.middle_usage.completion_tokens
    n_ep = len(rollouts)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "episodes": n_ep,
        "steps": steps,
        "steps_with_usage": steps_with_usage,
        "per_episode": {
            "prompt_tokens": prompt / n_ep if n_ep else None,
            "completion_tokens": completion / n_ep if n_ep else None,
            "steps": steps / n_ep if n_ep else None,
        },
        "per_step": {
            "prompt_tokens": prompt / steps_with_usage if steps_with_usage else None,
            "completion_tokens": completion / steps_with_usage if steps_with_usage else None,
        },
    }


def run_usage(run_dir: Path, contract_ids: set[str] | None = None) -> dict[str, Any]:
    """usage_totals over every trace file of a run folder, optionally for some contracts only."""

    def rows() -> Iterable[StepRow | RolloutOutcome | None]:
        for path in trace_files(run_dir):
            for _, row, _ in iter_rows(path):
                if contract_ids is None or (
                    row is not None and row.contract.contract_id in contract_ids
                ):
                    yield row

    return usage_totals(rows())


def sum_usage(usages: Iterable[dict[str, int] | None]) -> dict[str, int]:
    """Totals of per-call {prompt_tokens, completion_tokens} dicts (None = not reported)."""
    prompt = completion = calls = reported = 0
    for u in usages:
        calls += 1
        if u is None:
            continue
        reported += 1
        prompt += int(u.get("prompt_tokens", 0))
        completion += int(u.get("completion_tokens", 0))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "calls": calls,
        "calls_with_usage": reported,
    }
