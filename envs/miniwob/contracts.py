"""Intent contracts for MiniWoB++ episodes (WebRider Eq. 1 applied to a page-scored task).

A MiniWoB episode's request is only known once the page draws its utterance, so the
contract states the goal generically and binds the task and seed; the hard constraint
is the page's own reward, which is inspectable by construction.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from contracts.intent import (
    AnswerSchema,
    EnvSpec,
    EvidenceObligation,
    HardConstraint,
    Inspect,
    IntentContract,
)
from contracts.persona import PersonaPolicy


def parse_seeds(spec: str) -> list[int]:
    """'100-119' or '1,5,9' or '100-104,200' -> sorted unique seeds."""
    seeds: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo_s, hi_s = part.split("-", 1)
            lo, hi = int(lo_s), int(hi_s)
            if hi < lo:
                raise ValueError(f"seed range {part!r} runs backwards")
            seeds.update(range(lo, hi + 1))
        else:
            seeds.add(int(part))
    if not seeds:
        raise ValueError(f"no seeds in {spec!r}")
    return sorted(seeds)


def miniwob_contract(task: str, seed: int, persona: str = "explicit_control") -> IntentContract:
    return IntentContract(
        contract_id=f"miniwob/{task}/{seed}",
        base_task_id=f"miniwob/{task}/{seed}",
        request=f"Complete the MiniWoB++ task '{task}' as its page instructs.",
        website="miniwob",
        goal="Follow the page's instruction exactly and finish the episode.",
        hard_constraints=[
            HardConstraint(
                id="page_reward",
                text="The page's own raw reward is 1 at the end of the episode.",
                inspect=Inspect(kind="env_reward", value=1.0),
            )
        ],
        evidence_obligations=[
            EvidenceObligation(id="episode_done", text="The page reports the episode as done.")
        ],
        answer_schema=AnswerSchema(form="env_completion"),
        persona=PersonaPolicy.named(persona),
        env=EnvSpec(kind="miniwob", task=task, seed=seed),
    )


def miniwob_contracts(tasks: Iterable[str], seeds: Iterable[int]) -> list[IntentContract]:
    seeds = list(seeds)
    return [miniwob_contract(t, s) for t in tasks for s in seeds]


def write_contracts(contracts: Iterable[IntentContract], path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("x", encoding="utf-8") as fh:  # never overwrite an existing contract file
        for c in contracts:
            fh.write(c.to_jsonl_line() + "\n")
            n += 1
    return n
