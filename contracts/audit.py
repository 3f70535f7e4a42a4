"""Deterministic task and pairing audit: WebRider Appendix B, Table 10."""

from __future__ import annotations

import re
from enum import StrEnum

from contracts.intent import IntentContract
from contracts.persona import PERSONA_LIBRARY


class AuditFailure(StrEnum):
    PERSONA_NAME_IN_REQUEST = "persona_name_in_request"
    HARD_CONSTRAINT_NOT_INSPECTABLE = "hard_constraint_not_inspectable"
    NO_EVIDENCE_OBLIGATIONS = "no_evidence_obligations"
    POLICY_CANNOT_CHANGE_ROUTE = "policy_cannot_change_route"


def _name_variants(name: str) -> list[str]:
    words = name.replace("_", " ")
    return [words, words.replace(" ", "-"), name]


def audit_contract(contract: IntentContract) -> list[AuditFailure]:
    """Return the named failures; an empty list means the contract passes."""
    failures: list[AuditFailure] = []
    request = contract.request.lower()
    names = set(PERSONA_LIBRARY) | {contract.persona.name}
    for name in names:
        if any(re.search(rf"\b{re.escape(v.lower())}\b", request) for v in _name_variants(name)):
            failures.append(AuditFailure.PERSONA_NAME_IN_REQUEST)
            break
    if any(h.inspect is None for h in contract.hard_constraints):
        failures.append(AuditFailure.HARD_CONSTRAINT_NOT_INSPECTABLE)
    if not contract.evidence_obligations:
        failures.append(AuditFailure.NO_EVIDENCE_OBLIGATIONS)
    if not contract.persona.controls():
        failures.append(AuditFailure.POLICY_CANNOT_CHANGE_ROUTE)
    return failures
