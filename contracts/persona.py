"""Persona policies: WebRider Appendix C, Table 12 (10 axes) and Table 15 (15 named policies).

A persona is a task-local decision policy, not a user description: each named policy
carries the behavioral criterion that an observed trajectory can fail, and the set of
route decisions it is able to change (the pairing audit needs at least one).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

PERSONA_AXES: tuple[str, ...] = (
    "cost",
    "trust",
    "speed",
    "evidence",
    "clarify",
    "explore",
    "privacy",
    "access",
    "locality",
    "diversity",
)

# Table 12, high-setting meaning of each axis.
AXIS_MEANING: dict[str, str] = {
    "cost": "prioritize total price, fees, and discounts among valid options",
    "trust": "prefer official, reputable, and auditable sources",
    "speed": "stop once safe evidence is sufficient",
    "evidence": "verify each material claim before answering",
    "clarify": "ask when an unresolved fact can change the decision",
    "explore": "compare candidates and sources before settling",
    "privacy": "avoid unnecessary accounts, disclosure, or irreversible actions",
    "access": "prefer readable, stable, low-friction interaction paths",
    "locality": "use location, hours, dates, availability, and travel time",
    "diversity": "surface meaningfully different valid options",
}

RouteDecision = Literal["search", "verification", "asking", "ranking", "stopping"]

# Which route decisions each axis moves when it departs from the balanced 0.5 setting.
AXIS_CONTROLS: dict[str, tuple[RouteDecision, ...]] = {
    "cost": ("ranking", "search"),
    "trust": ("verification", "ranking"),
    "speed": ("stopping",),
    "evidence": ("verification", "stopping"),
    "clarify": ("asking",),
    "explore": ("search", "stopping"),
    "privacy": ("asking", "search"),
    "access": ("search",),
    "locality": ("search", "ranking"),
    "diversity": ("ranking", "search"),
}


class PersonaPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    axes: dict[str, float] = Field(description="The 10-axis vector of Table 12, each in [0, 1].")
    criterion: str = Field(min_length=1, description="Observable behavioral criterion (Table 15).")

    @model_validator(mode="after")
    def _check_axes(self) -> PersonaPolicy:
        missing = [a for a in PERSONA_AXES if a not in self.axes]
        extra = [a for a in self.axes if a not in PERSONA_AXES]
        if missing or extra:
            raise ValueError(
                f"persona axes must be exactly {PERSONA_AXES}; missing={missing} extra={extra}"
            )
        bad = {a: v for a, v in self.axes.items() if not 0.0 <= v <= 1.0}
        if bad:
            raise ValueError(f"persona axis values must lie in [0, 1]: {bad}")
        return self

    def controls(self) -> set[str]:
        """Route decisions this policy can change (axes away from the balanced setting)."""
        out: set[str] = set()
        for axis, value in self.axes.items():
            if abs(value - 0.5) > 0.15:
                out.update(AXIS_CONTROLS[axis])
        return out

    @classmethod
    def named(cls, name: str) -> PersonaPolicy:
        try:
            return PERSONA_LIBRARY[name]
        except KeyError:
            raise KeyError(
                f"unknown persona policy {name!r}; known: {sorted(PERSONA_LIBRARY)}"
            ) from None


def _p(name: str, criterion: str, **high: float) -> PersonaPolicy:
    axes = {a: 0.5 for a in PERSONA_AXES}
    axes.update(high)
    return PersonaPolicy(name=name, axes=axes, criterion=criterion)


# Table 15 in paper order. Axis settings encode each row's criterion through Table 12's axes.
PERSONA_LIBRARY: dict[str, PersonaPolicy] = {
    p.name: p
    for p in (
        _p(
            "explicit_control",
            "follow stated constraints; no latent preference may redirect the route",
            explore=0.2,
            clarify=0.7,
        ),
        _p(
            "trust_first_verifier",
            "prefer authoritative evidence; extra browsing must strengthen support",
            trust=0.95,
            evidence=0.9,
            speed=0.2,
        ),
        _p(
            "spec_exact_researcher",
            "verify exact compatibility and technical attributes",
            evidence=0.95,
            trust=0.7,
            speed=0.2,
        ),
        _p(
            "quality_first_explorer",
            "compare observable quality signals before ranking",
            explore=0.9,
            evidence=0.7,
            cost=0.3,
        ),
        _p(
            "local_context_planner",
            "use distance, hours, dates, and availability",
            locality=0.95,
            explore=0.6,
        ),
        _p(
            "urgent_pragmatist",
            "stop after sufficient safe evidence without skipping blockers",
            speed=0.95,
            explore=0.15,
            evidence=0.4,
        ),
        _p(
            "uncertainty_averse",
            "ask or abstain when ambiguity can change the result",
            clarify=0.95,
            evidence=0.8,
            speed=0.3,
        ),
        _p(
            "brand_loyalist",
            "honor an explicit brand preference without inventing one",
            explore=0.25,
            trust=0.7,
        ),
        _p(
            "safety_privacy_guardian",
            "avoid accounts, credentials, purchases, and private data without permission",
            privacy=0.95,
            clarify=0.7,
        ),
        _p(
            "diversity_explorer",
            "return distinct valid alternatives without relaxing constraints",
            diversity=0.95,
            explore=0.85,
            speed=0.2,
        ),
        _p(
            "deal_hunter",
            "search sale/refurbished/open-box options and verify total cost",
            cost=0.95,
            explore=0.75,
        ),
        _p(
            "sustainability_minded",
            "seek durability, repairability, refurbished, or local evidence",
            locality=0.7,
            evidence=0.7,
            explore=0.7,
        ),
        _p(
            "accessibility_seeker",
            "prefer robust, readable, low-cognitive-load paths without reducing correctness",
            access=0.95,
            speed=0.6,
        ),
        _p(
            "convenience_novice",
            "prefer clear, low-friction interaction and clarify confusing steps",
            access=0.8,
            clarify=0.75,
            explore=0.3,
        ),
        _p(
            "budget_optimizer",
            "rank valid options by total value, including fees and add-ons",
            cost=0.9,
            evidence=0.7,
        ),
    )
}
