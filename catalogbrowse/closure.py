"""The closure certificate: KnowPlan, "Stopping rule" and Proposition 1.

Holds when every discovered index entry, cursor and declared index size is bound or explicitly
failed (no candidate action left), the last two closure passes added no page, entity or
reference, every required field is bound or recorded unresolved, every provenance span lies in
bounds on a page that was opened and contains its fact, and the three documents validate.
"""

from __future__ import annotations

from typing import Any

from catalogbrowse.infer import inferred
from catalogbrowse.state import CatalogState


def provenance_errors(state: CatalogState, facts: list[dict]) -> list[str]:
    errors = []
    for f in facts:
        y = state.yields.get(f["source"])
        where = f"{f['entity']} {f['field']}"
        if y is None or f["source"] in state.failed:
            errors.append(f"{where}: source {f['source']} was not opened")
            continue
        if not 0 <= f["start"] <= f["end"] <= len(y.text):
            errors.append(f"{where}: span {f['start']}-{f['end']} out of bounds on {f['source']}")
            continue
        quoted = y.text[f["start"] : f["end"]]
        if str(f["value"]) not in quoted and " ".join(quoted.split()) != " ".join(
            str(f["value"]).split()
        ):
            errors.append(f"{where}: the text at the span is not the fact")
    return errors


def certificate(
    state: CatalogState,
    quiet_passes: int,
    facts: list[dict],
    documents_valid: bool,
    required_passes: int = 2,
) -> dict[str, Any]:
    obs = state.obligations(inferred(state))
    pending = sorted(o.key for o in obs.values() if not o.done and o.candidates)
    failed = sorted(o.key for o in obs.values() if not o.done and not o.candidates)
    index_pending = [k for k in pending if not k.startswith("field:")]
    field_pending = [k for k in pending if k.startswith("field:")]
    prov = provenance_errors(state, facts)
    conditions = {
        "index_closed": not index_pending,
        "fixed_point": quiet_passes >= required_passes,
        "fields_bound_or_unresolved": not field_pending,
        "provenance_in_bounds": not prov,
        "documents_valid": documents_valid,
    }
    return {
        "holds": all(conditions.values()),
        "conditions": conditions,
        "pending": pending,
        "failed": failed,
        "failed_pages": dict(sorted(state.failed.items())),
        "provenance_errors": prov,
        "obligations": {"total": len(obs), "done": sum(o.done for o in obs.values())},
        "summary": state.summary(),
    }
