"""What a reader sees of a contract at the top of a rollout (WebRider Eq. 1, Table 9; Figure 7).

The full intent contract comes from a contract file when one is known (the one passed with
`--contracts`, or `contracts.jsonl` in the run folder or beside it, as the demo writes it); the
goal the top layer was given (the MiniWoB++ utterance, which exists only once the page draws it)
and the top's constraints and obligations come from the rollout's first step row.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from contracts.intent import ContractFileError, IntentContract, load_contracts
from contracts.persona import PersonaPolicy
from contracts.step_row import ContractRef, StepRow

CONTRACT_FILE = "contracts.jsonl"


class ContractView(BaseModel):
    contract_id: str
    base_task_id: str = ""
    persona: str = ""
    persona_criterion: str = ""
    request: str = ""
    goal: str = ""
    utterance: str = Field(default="", description="The goal the top layer was handed.")
    hard_constraints: list[str] = Field(default_factory=list)
    soft_preferences: list[str] = Field(default_factory=list)
    material_blockers: list[str] = Field(default_factory=list)
    evidence_obligations: list[str] = Field(default_factory=list)
    answer_form: str = ""
    source: str = Field(default="trace", description="'contract file' or 'trace'.")


def contract_files_for(run_dir: Path) -> list[Path]:
    """Contract files a run folder carries: its own, then its parent's (the demo's layout)."""
    found = [run_dir / CONTRACT_FILE, run_dir.parent / CONTRACT_FILE]
    return [p for p in found if p.is_file()]


def load_contract_index(paths: list[Path]) -> tuple[dict[str, IntentContract], list[str]]:
    """Contracts by id from several files (first wins) and one error line per bad file."""
    index: dict[str, IntentContract] = {}
    errors: list[str] = []
    for path in paths:
        try:
            contracts = load_contracts(path)
        except ContractFileError as e:
            errors.append(str(e))
            continue
        for c in contracts:
            index.setdefault(c.contract_id, c)
    return index, errors


def utterance_of(step: StepRow | None) -> str:
    """The goal handed to the top: the text after 'Goal:' in its intention (rule and LLM tops
    both write it), else the first line of the page (MiniWoB++ draws its utterance first)."""
    if step is None:
        return ""
    intention = step.top.intention
    if "Goal:" in intention:
        return intention.rsplit("Goal:", 1)[1].strip()
    if step.contract.contract_id.startswith("miniwob/"):
        return next((ln.strip() for ln in step.observation.page_text.splitlines() if ln), "")
    return ""


def _criterion(name: str) -> str:
    try:
        return PersonaPolicy.named(name).criterion
    except (KeyError, ValueError):
        return ""


def contract_view(
    ref: ContractRef, first_step: StepRow | None, contract: IntentContract | None
) -> ContractView:
    utterance = utterance_of(first_step)
    if contract is not None:
        return ContractView(
            contract_id=contract.contract_id,
            base_task_id=contract.base_task_id,
            persona=contract.persona.name,
            persona_criterion=contract.persona.criterion,
            request=contract.request,
            goal=contract.goal,
            utterance=utterance,
            hard_constraints=[h.text for h in contract.hard_constraints],
            soft_preferences=list(contract.soft_preferences),
            material_blockers=list(contract.material_blockers),
            evidence_obligations=[e.text for e in contract.evidence_obligations],
            answer_form=contract.answer_schema.form,
            source="contract file",
        )
    top = first_step.top if first_step is not None else None
    return ContractView(
        contract_id=ref.contract_id,
        base_task_id=ref.base_task_id,
        persona=ref.persona,
        persona_criterion=_criterion(ref.persona) if ref.persona else "",
        utterance=utterance,
        hard_constraints=list(top.active_constraints) if top else [],
        material_blockers=list(top.blockers) if top else [],
        evidence_obligations=list(top.missing_evidence) if top else [],
    )
