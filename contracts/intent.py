"""Intent contract z = (g, H, S, B_mat, E, A, p): WebRider Eq. 1 and Appendix B, Table 9.

The record is immutable: it changes only on explicit user clarification, through
`IntentContract.clarify`, which returns a new contract and appends why.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    SerializationInfo,
    field_serializer,
    model_validator,
)

from common.loading import LoadError, load_jsonl_models
from contracts.persona import PersonaPolicy
from contracts.secrets import SecretStore, card_numbers
from contracts.version import SCHEMA_VERSION

_Frozen = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Inspect(BaseModel):
    """How a hard constraint is checked on what the browser showed (makes it inspectable)."""

    model_config = _Frozen
    kind: Literal[
        "page_text_contains",
        "url_contains",
        "answer_field_equals",
        "answer_field_max",
        "answer_field_min",
        "env_reward",
        # Contract sites: a fact of the selected item (on `page`), the best valid item by a
        # fact, an answer field checked against the gold, and checks over the whole trace.
        "item_attr",
        "item_best",
        "answer_matches_gold",
        "trace_never_visits",
    ]
    field: str | None = None
    value: str | float | None = None
    op: Literal["eq", "max", "min", "contains", "argmax", "argmin"] | None = None
    page: str = Field(default="item", description="Page kind the fact is shown on.")


class HardConstraint(BaseModel):
    model_config = _Frozen
    id: str
    text: str = Field(min_length=1)
    inspect: Inspect | None = None


class EvidenceObligation(BaseModel):
    """Which fact must be observed, on which page, before the answer (Table 16, Evidence)."""

    model_config = _Frozen
    id: str
    text: str = Field(min_length=1)
    fact: str | None = Field(default=None, description="Label of the fact as pages show it.")
    page: str | None = Field(default=None, description="Page kind: item, seller, fees, map ...")
    via: str | None = Field(default=None, description="Link text leading to that page.")
    min_items: int = Field(default=1, ge=1, description="Distinct items whose page is seen.")


class BlockerCheck(BaseModel):
    """A material blocker and the fact that resolves it (open while shown as an open value)."""

    model_config = _Frozen
    id: str
    text: str = Field(min_length=1)
    fact: str
    page: str = "item"
    via: str | None = None
    open_values: list[str] = Field(default_factory=list)


class AnswerSchema(BaseModel):
    model_config = _Frozen
    form: Literal["recommendation", "evidence_answer", "env_completion"] = "evidence_answer"
    fields: list[str] = Field(default_factory=list)
    min_alternatives: int = Field(default=0, ge=0)
    value_fact: str | None = Field(
        default=None, description="Fact label an evidence answer's `value` reports."
    )


class EnvSpec(BaseModel):
    """Where the contract runs: a MiniWoB++ task with a seed, a local site, or a live URL."""

    model_config = _Frozen
    kind: Literal["miniwob", "local_site", "url"]
    task: str | None = None
    seed: int | None = None
    start_url: str | None = None
    site: str | None = Field(
        default=None, description="Site key for one-rollout-per-site scheduling."
    )

    def site_key(self) -> str:
        if self.site:
            return self.site
        if self.kind == "miniwob":
            return f"miniwob/{self.task}"
        return self.start_url or self.kind


class Clarification(BaseModel):
    model_config = _Frozen
    field: str
    old: Any = None
    new: Any = None
    reason: str = Field(min_length=1)


class IntentContract(BaseModel):
    model_config = _Frozen
    schema_version: str = SCHEMA_VERSION
    contract_id: str = Field(min_length=1)
    base_task_id: str = Field(min_length=1)
    request: str = Field(min_length=1, description="The user's surface request x.")
    website: str = Field(default="", description="Website family w.")
    goal: str = Field(min_length=1)
    hard_constraints: list[HardConstraint] = Field(default_factory=list)
    soft_preferences: list[str] = Field(default_factory=list)
    material_blockers: list[str] = Field(default_factory=list)
    evidence_obligations: list[EvidenceObligation] = Field(default_factory=list)
    answer_schema: AnswerSchema = Field(default_factory=AnswerSchema)
    persona: PersonaPolicy
    geographic: bool = Field(default=False, description="Maps actions are legal only when true.")
    location: str | None = Field(default=None, description="Where a geographic task is.")
    claims: list[HardConstraint] = Field(
        default_factory=list, description="Claims a verify task checks (its verdict's basis)."
    )
    blocker_checks: list[BlockerCheck] = Field(default_factory=list)
    allow_sensitive: list[Literal["credentials", "payment", "personal"]] = Field(
        default_factory=list,
        description="Sensitive input the user allows typing; the guards refuse the rest.",
    )
    secrets: dict[str, SecretStr] = Field(
        default_factory=dict,
        description="The secret store: values the request refers to as {{secret:NAME}}; only "
        "the executor ever reads them, and every dump shows them masked.",
    )
    secret_fields: list[str] = Field(
        default_factory=list,
        description="Labels of fields whose content is secret (shown masked, like a password).",
    )
    env: EnvSpec
    clarifications: list[Clarification] = Field(default_factory=list)

    @model_validator(mode="after")
    def _no_secret_in_clear(self) -> IntentContract:
        # The request and goal are shown to every layer and written into every step row: a card
        # number there would leave the page. It belongs in the secret store, named by reference.
        texts = [self.request, self.goal, *self.soft_preferences]
        texts += [h.text for h in self.hard_constraints]
        for text in texts:
            if card_numbers(text):
                raise ValueError(
                    "a card number in the request or goal: put it in `secrets` and write "
                    "{{secret:NAME}} instead"
                )
        return self

    @field_serializer("secrets")
    def _dump_secrets(self, v: dict[str, SecretStr], info: SerializationInfo) -> dict[str, str]:
        # Only the contract writer asks for the values (`reveal_secrets`); every other dump,
        # the sha256 included, sees the mask, so a secret change never reaches a trace.
        reveal = bool(info.context and info.context.get("reveal_secrets"))
        return {k: (s.get_secret_value() if reveal else "**********") for k, s in v.items()}

    def secret_store(self) -> SecretStore:
        return SecretStore({k: v.get_secret_value() for k, v in self.secrets.items()})

    def to_jsonl_line(self) -> str:
        """The contract as a contract file holds it (secret values included)."""
        return self.model_dump_json(context={"reveal_secrets": True})

    def sha256(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()

    def clarify(self, field: str, value: Any, reason: str) -> IntentContract:
        """Return a new contract with `field` set to `value`, recording the clarification.

        Only an explicit user clarification may change a contract; the reason is kept so
        the audit trail shows why the obligations moved.
        """
        if field not in type(self).model_fields or field in ("schema_version", "clarifications"):
            raise ValueError(f"cannot clarify unknown or protected field {field!r}")
        data = self.model_dump()
        old = data[field]
        data[field] = value
        data["clarifications"] = [
            *data["clarifications"],
            Clarification(field=field, old=old, new=value, reason=reason).model_dump(),
        ]
        return type(self).model_validate(data)


class ContractFileError(LoadError):
    """A contract file is invalid; the message names the file, line and field."""


def load_contracts(path: str | Path) -> list[IntentContract]:
    """Read a JSONL contract file, failing on the first bad line with file:line and field; a
    file without any contract is an error too (a run over it would do nothing and say so)."""
    seen: dict[str, int] = {}

    def unique(contract: IntentContract, lineno: int) -> None:
        if contract.contract_id in seen:
            raise ContractFileError(
                f"{path}:{lineno}: field 'contract_id': duplicate {contract.contract_id!r} "
                f"(first on line {seen[contract.contract_id]})"
            )
        seen[contract.contract_id] = lineno

    try:
        out = load_jsonl_models(path, IntentContract, "contract file", check=unique)
    except LoadError as e:
        raise ContractFileError(str(e)) from None
    if not out:
        raise ContractFileError(f"{path}: holds no contract (only blank or # comment lines)")
    return out
