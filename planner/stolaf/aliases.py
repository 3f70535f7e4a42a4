"""Department codes and aliases of the St. Olaf sources (StoDevX data-mappings), KnowPlan
"Problem Formulation": every fact keeps its provenance, here the alias each code went through."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ABBREVIATIONS = "to_department_abbreviations.json"
NAMES = "to_department_names.json"
SUPPLEMENT = Path(__file__).with_name("departments.yaml")


@dataclass
class Departments:
    """Resolves a written department ('CH/BI', 'AS', 'Economics') to canonical codes."""

    codes: set[str]  # codes the mapping files know
    alias: dict[str, str]  # lower-case alias or name -> code
    extra_codes: dict[str, str] = field(default_factory=dict)  # code -> name (supplement)
    extra_names: dict[str, str] = field(default_factory=dict)  # lower-case word -> code

    @classmethod
    def load(cls, src: Path) -> Departments:
        abbr = json.loads((src / ABBREVIATIONS).read_text())
        names = json.loads((src / NAMES).read_text())
        extra = yaml.safe_load(SUPPLEMENT.read_text())
        alias = {k.lower(): v for k, v in abbr.items()}
        for code, name in names.items():
            alias.setdefault(name.lower(), code.upper())
        return cls(
            codes={k.upper() for k in names} | set(abbr.values()),
            alias=alias,
            extra_codes=dict(extra.get("codes") or {}),
            extra_names={k.lower(): v for k, v in (extra.get("names") or {}).items()},
        )

    def code(self, part: str) -> tuple[str, str | None] | None:
        """(code, alias note) of one department part, or None when unknown."""
        up = part.upper()
        if up in self.codes:
            return up, None
        if part.lower() in self.alias:
            code = self.alias[part.lower()]
            return code, f"{part} -> {code} ({ABBREVIATIONS})"
        if up in self.extra_codes:
            return up, f"{up} ({SUPPLEMENT.name})"
        if part.lower() in self.extra_names:
            code = self.extra_names[part.lower()]
            return code, f"{part} -> {code} ({SUPPLEMENT.name})"
        return None

    def resolve(self, written: str) -> tuple[list[str], list[str]] | None:
        """Canonical codes of a written department ('AS/RE' -> ASIAN, REL) and the alias
        uses; None when any part is unknown."""
        codes, notes = [], []
        for part in written.split("/"):
            hit = self.code(part.strip())
            if hit is None:
                return None
            codes.append(hit[0])
            if hit[1]:
                notes.append(hit[1])
        return codes, notes
