"""Study settings: WebRider Appendix G, Table 30 (80 pairs, 20 anchors, 6 raters, 2 per pair)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from common.loading import load_mapping, validate

DEFAULTS = Path(__file__).with_name("audit.yaml")


class AuditSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    pairs: int = Field(ge=1)
    anchors: int = Field(ge=0)
    raters: int = Field(ge=2)
    coverage_raters: int = Field(ge=1)
    seed: int
    confidence: float = Field(gt=0, lt=1)
    low_pcs: float = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _fits(self) -> AuditSettings:
        if self.anchors > self.pairs:
            raise ValueError(f"anchors ({self.anchors}) cannot exceed pairs ({self.pairs})")
        if self.coverage_raters > self.raters:
            raise ValueError(
                f"coverage_raters ({self.coverage_raters}) cannot exceed raters ({self.raters})"
            )
        return self


def load_settings(path: Path = DEFAULTS, **overrides: Any) -> AuditSettings:
    """The study settings of `path` with the command's overrides; LoadError names the file
    and the field on any problem."""
    data = load_mapping(path, "audit settings file")
    data.update({k: v for k, v in overrides.items() if v is not None})
    return validate(AuditSettings, data, str(path))
