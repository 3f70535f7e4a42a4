"""Live insertion scoring: WebRider Appendix D Table 16 (success, Access, Runtime) and Appendix I
Table 51 (All / Unblocked / Clean denominators), paired by contract with a reference run.

Success is MiniWoB++'s raw-reward success for MiniWoB contracts and contract-gated success
(RolloutOutcome.gates.cgs) where other contracts carry gates. External-access failures and
runtime failures (crash, timeout, infrastructure) are counted apart, never inside success.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from contracts.step_row import RolloutOutcome
from evals.stats import mcnemar_exact, paired_bootstrap, paired_table, wilson_interval

DENOMINATORS: tuple[str, ...] = ("all", "unblocked", "clean")
RUNTIME_TERMINALS = frozenset({"runtime_failure", "timeout"})


@dataclass(frozen=True)
class Episode:
    """One contract's final outcome reduced to what the live comparison scores."""

    contract_id: str
    task: str
    seed: int | None
    success: bool
    success_source: str  # "raw_reward" (MiniWoB) or "cgs" (contract gates)
    access_blocked: bool
    runtime_failure: bool

    def counts_in(self, denominator: str) -> bool:
        if denominator == "all":
            return True
        if denominator == "unblocked":
            return not self.access_blocked
        if denominator == "clean":
            return not (self.access_blocked or self.runtime_failure)
        raise ValueError(f"unknown denominator {denominator!r}")


def episode_of(o: RolloutOutcome) -> Episode:
    """Classify one outcome row (Table 16: Access and Runtime are reported outside success)."""
    if o.env == "miniwob" or o.gates is None:
        success, source = bool(o.success), "raw_reward"
    else:
        success, source = o.gates.cgs, "cgs"
    access = o.access_failure is not None or o.terminal == "access_failure"
    runtime = not access and (o.terminal in RUNTIME_TERMINALS or o.runtime_failure is not None)
    return Episode(
        contract_id=o.contract.contract_id,
        task=o.task or o.contract.base_task_id,
        seed=o.seed,
        success=success and not access and not runtime,
        success_source=source,
        access_blocked=access,
        runtime_failure=runtime,
    )


@dataclass(frozen=True)
class Pair:
    candidate: Episode
    reference: Episode

    @property
    def contract_id(self) -> str:
        return self.candidate.contract_id

    @property
    def task(self) -> str:
        return self.candidate.task

    def counts_in(self, denominator: str) -> bool:
        return self.candidate.counts_in(denominator) and self.reference.counts_in(denominator)


class PairingError(ValueError):
    """The two runs do not cover the same tasks and seeds under a contract id."""


@dataclass
class Paired:
    pairs: list[Pair]
    only_candidate: list[str]
    only_reference: list[str]


def pair_outcomes(
    candidate: Iterable[RolloutOutcome],
    reference: Iterable[RolloutOutcome],
    contract_ids: Iterable[str] | None = None,
) -> Paired:
    """Pair final outcomes by contract id (the last row per contract wins, as load_outcomes does).

    Raises PairingError when a shared contract id names a different task or seed in the two runs.
    """
    cand = {o.contract.contract_id: episode_of(o) for o in candidate}
    ref = {o.contract.contract_id: episode_of(o) for o in reference}
    if contract_ids is not None:
        keep = list(dict.fromkeys(contract_ids))
        wanted = set(keep)
        cand = {k: v for k, v in cand.items() if k in wanted}
        ref = {k: v for k, v in ref.items() if k in wanted}
        order = [k for k in keep if k in cand and k in ref]
    else:
        order = sorted(set(cand) & set(ref))
    pairs = []
    for cid in order:
        c, r = cand[cid], ref[cid]
        if (c.task, c.seed) != (r.task, r.seed):
            raise PairingError(
                f"contract {cid}: candidate ran {c.task} seed {c.seed}, reference ran {r.task} "
                f"seed {r.seed}; the reference run must use the same tasks and seeds"
            )
        pairs.append(Pair(c, r))
    return Paired(
        pairs=pairs,
        only_candidate=sorted(set(cand) - set(ref)),
        only_reference=sorted(set(ref) - set(cand)),
    )


def run_rates(episodes: list[Episode]) -> dict[str, Any]:
    """One run's success under the three Table 51 denominators, plus access/runtime counts."""
    out: dict[str, Any] = {
        "episodes": len(episodes),
        "access_blocked": sum(e.access_blocked for e in episodes),
        "runtime_failures": sum(e.runtime_failure for e in episodes),
        "success_sources": sorted({e.success_source for e in episodes}),
    }
    out["access_rate"] = out["access_blocked"] / len(episodes) if episodes else None
    for d in DENOMINATORS:
        kept = [e for e in episodes if e.counts_in(d)]
        k, n = sum(e.success for e in kept), len(kept)
        ci = wilson_interval(k, n)
        out[d] = {
            "n": n,
            "successes": k,
            "rate": k / n if n else None,
            "wilson_95": list(ci) if ci else None,
        }
    return out


def paired_stats(
    pairs: list[Pair], denominator: str, *, n_boot: int = 10_000, seed: int = 20260612
) -> dict[str, Any]:
    """Exact McNemar and the paired bootstrap on the pairs both runs keep under `denominator`."""
    kept = [p for p in pairs if p.counts_in(denominator)]
    cand = [p.candidate.success for p in kept]
    ref = [p.reference.success for p in kept]
    table = paired_table(cand, ref)
    return {
        "denominator": denominator,
        "n": len(kept),
        "table": table,
        "mcnemar_p": mcnemar_exact(table["candidate_only"], table["reference_only"]),
        "bootstrap": paired_bootstrap(cand, ref, n_boot=n_boot, seed=seed),
    }


def per_task(pairs: list[Pair]) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for p in pairs:
        r = rows.setdefault(
            p.task,
            {
                "n": 0,
                "candidate_successes": 0,
                "reference_successes": 0,
                "candidate_access": 0,
                "reference_access": 0,
                "candidate_runtime": 0,
                "reference_runtime": 0,
            },
        )
        r["n"] += 1
        for side, e in (("candidate", p.candidate), ("reference", p.reference)):
            r[f"{side}_successes"] += e.success
            r[f"{side}_access"] += e.access_blocked
            r[f"{side}_runtime"] += e.runtime_failure
    for r in rows.values():
        r["candidate_rate"] = r["candidate_successes"] / r["n"]
        r["reference_rate"] = r["reference_successes"] / r["n"]
    return dict(sorted(rows.items()))


def compare(paired: Paired, *, n_boot: int = 10_000, seed: int = 20260612) -> dict[str, Any]:
    """Everything the live report shows, from paired episodes only (no browser involved)."""
    pairs = paired.pairs
    return {
        "paired_contracts": len(pairs),
        "unpaired": {
            "only_candidate": paired.only_candidate,
            "only_reference": paired.only_reference,
        },
        "candidate": run_rates([p.candidate for p in pairs]),
        "reference": run_rates([p.reference for p in pairs]),
        "paired": {d: paired_stats(pairs, d, n_boot=n_boot, seed=seed) for d in DENOMINATORS},
        "per_task": per_task(pairs),
        "episodes": [
            {"candidate": asdict(p.candidate), "reference": asdict(p.reference)} for p in pairs
        ],
    }
