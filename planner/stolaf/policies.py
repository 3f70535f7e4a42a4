"""Unsupported-policy records: KnowPlan, "Problem Formulation" (natural-language exceptions
are kept with provenance and never treated as satisfied)."""

from __future__ import annotations

from planner.documents import Provenance, Unsupported, UnsupportedPolicy


class Policies:
    """Numbers policy records per document; the same clause for the same owner is one record."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.records: list[UnsupportedPolicy] = []
        self._seen: dict[tuple[str, tuple[str, ...]], str] = {}

    def add(
        self, text: str, kind: str, applies_to: list[str], prov: Provenance, label: str = ""
    ) -> Unsupported:
        text = " ".join(text.split())
        key = (text, tuple(applies_to))
        if key not in self._seen:
            pid = f"{self.prefix}-{len(self.records) + 1:04d}"
            self._seen[key] = pid
            self.records.append(
                UnsupportedPolicy(
                    id=pid, text=text, kind=kind, applies_to=applies_to, provenance=prov
                )
            )
        return Unsupported(policy=self._seen[key], label=(label or text)[:80])

    def note(self, text: str, applies_to: list[str], prov: Provenance) -> str:
        """An advisory message beside an encoded requirement: recorded, never in the AST."""
        return self.add(text, "note", applies_to, prov).policy
