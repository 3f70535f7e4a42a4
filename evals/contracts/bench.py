"""`pathwise bench contracts`: run contracts with a policy (resumable), then score the run.

The teacher is the deterministic contract top + heuristic middle; `llm` swaps in the LLM top
(PATHWISE_TOP_* endpoint); `endpoint` keeps the contract top and serves the middle from an
OpenAI-compatible endpoint. Scores: CGS and gates, three denominators, Table 14, time per rollout.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from agent_runtime.runner.traces import iter_rows, load_outcomes, trace_files
from common.outputs import write_json
from contracts.intent import IntentContract
from contracts.step_row import StepRow
from evals.contracts.counterfactual import counterfactuals
from evals.contracts.metrics import summarize
from evals.contracts.report import render


def load_steps(run_dir: Path) -> dict[str, list[StepRow]]:
    steps: dict[str, list[StepRow]] = defaultdict(list)
    for path in trace_files(run_dir):
        for _, row, _ in iter_rows(path):
            if isinstance(row, StepRow):
                steps[row.rollout_id].append(row)
    return steps


def score_run(run_dir: Path, contracts: list[IntentContract]) -> dict[str, Any]:
    ids = {c.contract_id for c in contracts}
    outcomes = [o for o in load_outcomes(run_dir) if o.contract.contract_id in ids]
    modes = _modes(contracts)
    return {
        "summary": summarize(outcomes, modes),
        "counterfactuals": counterfactuals(outcomes, load_steps(run_dir)),
        "missing": sorted(ids - {o.contract.contract_id for o in outcomes}),
    }


def _modes(contracts: list[IntentContract]) -> dict[str, str]:
    """Base task -> task mode, read from the world of each contract's seed (gold stays there)."""
    from envs.sites.world import generate_world

    out: dict[str, str] = {}
    for seed in {c.env.seed for c in contracts if c.env.kind == "local_site"}:
        out.update({t.id: t.mode for t in generate_world(seed or 0).tasks})
    return out


def write_results(out: Path, results: dict[str, Any]) -> None:
    write_json(out / "results.json", results)
    (out / "report.md").write_text(render(results), encoding="utf-8")
