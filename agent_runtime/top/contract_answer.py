"""The contract top's answer in the contract's answer form: WebRider Table 9 ("Answer form") and
Table 16 (Answer gate): selection, support, caveat, alternatives; or selection, value / verdict,
support. Every value comes from what the chosen item's pages showed."""

from __future__ import annotations

import json

from agent_runtime.top.contract_reading import Candidate, check
from contracts.intent import IntentContract


def compose_answer(c: IntentContract, chosen: Candidate, others: list[Candidate]) -> str:
    """The answer as a JSON object string with exactly the form's fields."""
    support = [
        f"{o.fact}: {chosen.pages.get(o.page or 'item', {}).get(o.fact, '')}"
        for o in c.evidence_obligations
        if o.fact
    ]
    form: dict[str, object] = {"selection": chosen.id, "support": support or [chosen.title]}
    fields = c.answer_schema.fields
    if "value" in fields and c.answer_schema.value_fact:
        vf = c.answer_schema.value_fact
        page = next((o.page or "item" for o in c.evidence_obligations if o.fact == vf), "item")
        form["value"] = chosen.pages.get(page, {}).get(vf, "")
    if "verdict" in fields:
        shown = [
            (h.inspect, chosen.pages.get(h.inspect.page, {}).get(h.inspect.field or "", "\0"))
            for h in c.claims
            if h.inspect
        ]
        form["verdict"] = "yes" if all(check(ins, v) for ins, v in shown) else "no"
    if "caveat" in fields:
        prefs = "; ".join(c.soft_preferences)
        form["caveat"] = f"Preferences not verified: {prefs}" if prefs else "none"
    if "alternatives" in fields:
        form["alternatives"] = [o.id for o in others]
    return json.dumps(form)
