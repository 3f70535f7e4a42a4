"""Guard labels: WebRider Appendix H, Tables 44-46 (compiler outcomes, fallbacks, access)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from contracts.actions import ActionAST


class GuardStatus(StrEnum):
    PARSED = "parsed"
    REPAIRED = "repaired"
    REJECTED = "rejected"


class RepairKind(StrEnum):
    """Every deterministic repair the compiler may apply; nothing else is ever rewritten."""

    CODE_FENCE = "code_fence"
    SURROUNDING_PROSE = "surrounding_prose"
    ALIAS_TYPE = "alias_type"
    ALIAS_FIELD = "alias_field"
    LABEL_STRING = "label_string"
    BARE_ACTION = "bare_action"
    MISSING_FALLBACK = "missing_fallback"
    INVALID_FALLBACK = "invalid_fallback"


class RejectReason(StrEnum):
    UNPARSEABLE = "unparseable"
    NOT_AN_OBJECT = "not_an_object"
    UNKNOWN_ACTION = "unknown_action"
    TERMINAL_LABEL = "terminal_label"
    MISSING_TARGET = "missing_target"
    INVISIBLE_TARGET = "invisible_target"
    PROSE_LABEL = "prose_label"
    EMPTY_TEXT = "empty_text"
    EMPTY_QUERY = "empty_query"
    MAPS_NOT_GEOGRAPHIC = "maps_not_geographic"
    INVALID_FIELD = "invalid_field"
    SCROLL_LOOP = "scroll_loop"
    REPEATED_STATE = "repeated_state"
    EXTERNAL_ACCESS = "external_access"
    # Tightened for the contract sites' pages:
    DUPLICATE_KEY = "duplicate_key"  # ambiguous JSON: never resolved by "last key wins"
    UNDECODABLE_TEXT = "undecodable_text"  # lone surrogates, control characters
    ACCESS_CIRCUMVENTION = "access_circumvention"  # text that solves or routes around a wall
    SENSITIVE_INPUT = "sensitive_input"  # credentials, card or personal data not allowed
    # The compiler never raises; a bug inside it surfaces as this labeled rejection.
    INTERNAL_ERROR = "internal_error"


class LoopKind(StrEnum):
    REPEATED_STATE = "repeated_state"
    SCROLL_LOOP = "scroll_loop"


class AccessSignal(StrEnum):
    """External-access interruptions (Table 16, X_access): stop automation, never bypass."""

    CAPTCHA = "captcha"
    LOGIN_WALL = "login_wall"
    HTTP_401 = "http_401"
    HTTP_403 = "http_403"
    HTTP_429 = "http_429"
    ANTI_BOT = "anti_bot"


class GuardReport(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: GuardStatus
    repairs: list[RepairKind] = Field(default_factory=list)
    rejection: RejectReason | None = None
    detail: str = ""
    fallback_used: bool = False
    loop: LoopKind | None = None
    stale: bool = False
    external_access: AccessSignal | None = None

    def labels(self) -> list[str]:
        """Flat label list for traces and `pathwise guards check`."""
        out = [self.status.value]
        out += [f"repair:{r.value}" for r in self.repairs]
        if self.rejection:
            out.append(f"rejected:{self.rejection.value}")
        if self.fallback_used:
            out.append("fallback_used")
        if self.loop:
            out.append(f"loop:{self.loop.value}")
        if self.stale:
            out.append("stale")
        if self.external_access:
            out.append(f"external_access:{self.external_access.value}")
        return out


class CompileResult(BaseModel):
    """What the guard compiler returns for one raw middle output; it never raises.

    `action` is the post-guard executable Action AST (its fallback already resolved),
    or None when automation must stop (external access).
    """

    model_config = ConfigDict(extra="forbid")
    action: ActionAST | None = None
    report: GuardReport

    def to_line(self) -> dict[str, Any]:
        act = self.action
        return {
            "action": act.action.model_dump(exclude_none=True) if act is not None else None,
            "fallback": act.fallback.model_dump(exclude_none=True) if act is not None else None,
            "labels": self.report.labels(),
            "rejection": self.report.rejection.value if self.report.rejection else None,
            "detail": self.report.detail,
        }
