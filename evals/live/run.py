"""Live middle insertion: WebRider Table 6 / Appendix E Table 34 (top, guards, executor fixed).

The runner runs the contracts with the fixed rule top, the guard compiler and the executor,
and the candidate middle (normally `endpoint`: a served student). Its outcomes are paired by
contract id with a reference run on the same tasks and seeds, then scored with the Table 51
denominators, exact McNemar and paired bootstrap CIs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_runtime.runner.config import MiddleSpec, RunConfig, TopSpec
from agent_runtime.runner.traces import load_outcomes
from common.outputs import OutputExistsError, write_json
from contracts.step_row import RolloutOutcome
from evals.live.pairing import compare, pair_outcomes
from evals.live.report import write_report
from evals.tokens import run_usage

RUN_SUBDIR = "run"
REPORT_FILES = ("results.json", "report.md")


@dataclass
class LiveConfig:
    contracts: Path
    reference: Path
    out: Path
    # The candidate middle: a served student (kind endpoint) or the teacher's heuristic.
    middle: MiddleSpec = field(default_factory=MiddleSpec)
    workers: int = 1
    step_cap: int = 20
    timeout_s: float = 900.0
    retries: int = 1
    candidate: Path | None = None  # an already finished run folder: score it, run nothing
    n_boot: int = 10_000
    seed: int = 20260612

    def as_dict(self) -> dict[str, Any]:
        plain = {k: v for k, v in self.__dict__.items() if k != "middle"}
        return {
            **{k: (str(v) if isinstance(v, Path) else v) for k, v in plain.items()},
            "middle": self.middle.model_dump(mode="json"),
        }


def _policy_name(run_dir: Path) -> str:
    manifest = run_dir / "run.json"
    if manifest.is_file():
        return str(json.loads(manifest.read_text()).get("policy", run_dir.name))
    return run_dir.name


def check_out(out: Path) -> None:
    for name in REPORT_FILES:
        if (out / name).exists():
            raise OutputExistsError(
                f"refusing to overwrite {out / name}: live reports are never overwritten; "
                "choose a new --out (the run folder inside it can be reused with --candidate)"
            )


def run_candidate(cfg: LiveConfig, contracts: list[Any], progress: bool = True) -> Path:
    """Run the contracts with the rule top + candidate middle; resumable in OUT/run. A served
    middle is checked first (key, model) and sent screenshots when its model takes images."""
    from agent_runtime.runner.batch import run_batch
    from agent_runtime.runner.factories import ready, resources_for

    run_cfg = ready(
        RunConfig(
            step_cap=cfg.step_cap,
            timeout_s=cfg.timeout_s,
            retries=cfg.retries,
            workers=cfg.workers,
            seed=cfg.seed,
            top=TopSpec(kind="rule"),
            middle=cfg.middle,
        )
    )
    run_dir = cfg.out / RUN_SUBDIR
    run_batch(
        contracts, run_dir, run_cfg, resources=resources_for(run_cfg, contracts), progress=progress
    )
    return run_dir


def score_runs(
    contract_ids: list[str],
    candidate_dir: Path,
    reference_dir: Path,
    *,
    candidate_outcomes: list[RolloutOutcome] | None = None,
    reference_outcomes: list[RolloutOutcome] | None = None,
    n_boot: int = 10_000,
    seed: int = 20260612,
) -> dict[str, Any]:
    """Pair two run folders' final outcomes on `contract_ids` and compute every statistic."""
    cand = candidate_outcomes if candidate_outcomes is not None else load_outcomes(candidate_dir)
    ref = reference_outcomes if reference_outcomes is not None else load_outcomes(reference_dir)
    paired = pair_outcomes(cand, ref, contract_ids)
    results = compare(paired, n_boot=n_boot, seed=seed)
    ids = {p.contract_id for p in paired.pairs}
    missing = [c for c in contract_ids if c not in ids]
    results.update(
        kind="live_insertion",
        contracts=len(contract_ids),
        missing_from_pairing=missing,
        candidate_run=str(candidate_dir),
        reference_run=str(reference_dir),
        names={"candidate": _policy_name(candidate_dir), "reference": _policy_name(reference_dir)},
        bootstrap={"n_boot": n_boot, "seed": seed},
        tokens={
            "candidate": run_usage(candidate_dir, ids) if candidate_dir.is_dir() else None,
            "reference": run_usage(reference_dir, ids) if reference_dir.is_dir() else None,
        },
    )
    return results


def run_live(cfg: LiveConfig, *, progress: bool = True) -> dict[str, Any]:
    """Run (or reuse) the candidate, pair it with the reference, write results.json + report.md."""
    from contracts.intent import load_contracts

    check_out(cfg.out)
    contracts = load_contracts(cfg.contracts)
    ids = [c.contract_id for c in contracts]
    reference = load_outcomes(cfg.reference)
    if not reference:
        raise FileNotFoundError(f"no outcome rows under {cfg.reference}/traces: not a run folder")
    if not set(ids) & {o.contract.contract_id for o in reference}:
        raise ValueError(
            f"the reference run {cfg.reference} shares no contract id with {cfg.contracts}"
        )
    candidate_dir = (
        cfg.candidate if cfg.candidate is not None else run_candidate(cfg, contracts, progress)
    )
    results = score_runs(
        ids,
        candidate_dir,
        cfg.reference,
        reference_outcomes=reference,
        n_boot=cfg.n_boot,
        seed=cfg.seed,
    )
    results["config"] = cfg.as_dict()
    cfg.out.mkdir(parents=True, exist_ok=True)
    check_out(cfg.out)
    write_json(cfg.out / "results.json", results)
    write_report(cfg.out, results)
    return results
