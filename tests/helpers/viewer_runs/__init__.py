"""Two committed runner outputs (`runs/`: teacher and perturbed, see make_fixture.py) and
crafted trace rows; the trace viewer and the audit tests read them."""

from __future__ import annotations

from pathlib import Path

from contracts.guard_labels import AccessSignal
from contracts.step_row import ContractRef, Gates, RolloutOutcome

FIXTURE = Path(__file__).parent / "runs"


def outcome(rid: str, **kw: object) -> RolloutOutcome:
    """An outcome row as a contract-site run writes it (gates, access and runtime labels)."""
    cid = rid.rsplit("@", 1)[0]
    ref = ContractRef(contract_id=cid, base_task_id=cid, sha256="0" * 64, persona="budget_saver")
    return RolloutOutcome(rollout_id=rid, contract=ref, env="local_site", task="shop", **kw)


def crafted_outcomes() -> list[RolloutOutcome]:
    return [
        outcome(
            "shop/lamp/1@0",
            terminal="answer",
            success=True,
            gates=Gates(terminal=True, hard=True, evidence=False, answer=True, blocker=True),
            steps=0,
        ),
        outcome(
            "shop/lamp/2@0",
            terminal="access_failure",
            access_failure=AccessSignal.CAPTCHA,
            gates=Gates(terminal=False, hard=False, evidence=False, answer=False, blocker=False),
        ),
        outcome(
            "shop/lamp/3@0",
            terminal="runtime_failure",
            runtime_failure="TargetClosedError: browser crashed",
        ),
    ]


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)
