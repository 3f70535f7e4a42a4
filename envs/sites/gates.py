"""Contract-gated success: WebRider Eq. 4 and Appendix D, Table 16, scored on a finished trace.

CGS = terminal AND hard AND evidence AND answer AND NOT unresolved-blocker. Every gate is a
deterministic check of the step rows against the site's data and gold: a fact counts as
observed only when a step at or before the answer step showed its page with "Label: value".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlparse

from contracts.intent import IntentContract
from contracts.step_row import Gates, StepRow
from envs.sites.facts import fact_of, satisfies
from envs.sites.model import ITEM_ID, Gold, Item, SiteData


def parse_answer(text: str | None) -> dict[str, Any] | None:
    """The top's answer as a JSON object, or None when it is not one."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def _norm(v: Any) -> str:
    return " ".join(str(v).split()).casefold()


def page_matches(site: SiteData, item: Item, page: str, url: str, text: str) -> bool:
    """Is this observation `item`'s page of kind `page`?"""
    path = urlparse(url).path
    if page == "item":
        return path == f"/item/{item.id}" and f"Item no.: {item.id}" in text
    if page == "map":
        return path == "/maps" and item.title in text
    pid = item.related.get(page)
    return pid is not None and path == f"/p/{page}/{pid}"


def observed(
    site: SiteData, item: Item, page: str, label: str, steps: Sequence[StepRow]
) -> str | None:
    """The value of `label` seen on `item`'s `page` in `steps` (None when never seen)."""
    value = fact_of(site, item, page, label)
    if value is None:
        return None
    shown = f"{label}: {value}"
    for s in steps:
        obs = s.observation
        if not page_matches(site, item, page, obs.url, obs.page_text):
            continue
        text = obs.page_text
        if page == "map":
            # A maps page lists several places: the fact must follow this place's title.
            start = text.find(item.title)
            text = text[start : start + 400]
        if shown in text:
            return value
    return None


def _well_formed(
    form: dict[str, Any], fields: list[str], site: SiteData, min_alt: int
) -> list[str]:
    bad = []
    for f in fields:
        v = form.get(f)
        if f == "selection":
            ok = isinstance(v, str) and bool(ITEM_ID.match(v)) and site.item(v) is not None
        elif f == "alternatives":
            ok = (
                isinstance(v, list)
                and all(isinstance(a, str) and ITEM_ID.match(a) for a in v)
                and len(v) >= min_alt
                and form.get("selection") not in v
            )
        elif f == "support":
            ok = (
                isinstance(v, list) and bool(v) and all(isinstance(x, str) and x.strip() for x in v)
            ) or (isinstance(v, str) and bool(v.strip()))
        elif f == "verdict":
            ok = v in ("yes", "no")
        elif f == "caveat":
            ok = isinstance(v, str)
        else:
            ok = isinstance(v, str) and bool(v.strip())
        if not ok:
            bad.append(f)
    return bad


def score(
    contract: IntentContract,
    site: SiteData,
    gold: Gold,
    steps: Sequence[StepRow],
    terminal: str,
    answer: str | None,
) -> Gates:
    """The five gates for one rollout; `steps` are its step rows in order."""
    reasons: list[str] = []
    terminal_ok = terminal == "answer"
    if not terminal_ok:
        reasons.append(f"terminal: ended with {terminal}, not an answer")
    answer_step = max((s.step_index for s in steps), default=-1)
    seen = [s for s in steps if s.step_index <= answer_step]
    form = parse_answer(answer) if terminal_ok else None
    item = site.item(form["selection"]) if form and isinstance(form.get("selection"), str) else None

    # Answer: every field of the form present and well-formed.
    if form is None:
        answer_ok = False
        reasons.append("answer: no JSON answer object")
    else:
        bad = _well_formed(
            form, contract.answer_schema.fields, site, contract.answer_schema.min_alternatives
        )
        answer_ok = not bad
        if bad:
            reasons.append(f"answer: missing or malformed {', '.join(bad)}")

    # Hard constraints: the chosen item (and any alternative) satisfies each one.
    hard_ok = item is not None
    if item is None:
        reasons.append("hard: no valid selection to check")
    alts = [a for a in (form or {}).get("alternatives", []) or [] if isinstance(a, str)]
    for h in contract.hard_constraints:
        ins = h.inspect
        if ins is None:
            continue
        ok = True
        if ins.kind == "item_attr" and item is not None:
            ok = satisfies(site, item, ins) and all(
                (alt := site.item(a)) is not None and satisfies(site, alt, ins) for a in alts
            )
        elif ins.kind == "item_best" and item is not None:
            ok = item.id in gold.valid
        elif ins.kind == "answer_matches_gold":
            field = ins.field or "value"
            ok = form is not None and _norm(form.get(field, "")) == _norm(
                gold.expected.get(field, "\0")
            )
        elif ins.kind == "trace_never_visits":
            ok = not any(urlparse(s.observation.url).path.startswith(str(ins.value)) for s in steps)
        if not ok:
            hard_ok = False
            reasons.append(f"hard: {h.id} ({h.text})")

    # Evidence: each obligation's fact seen on its page before the answer step.
    evidence_ok = item is not None
    if item is None:
        reasons.append("evidence: no selected item to hold evidence for")
    else:
        for o in contract.evidence_obligations:
            if o.min_items > 1:
                pages = {
                    urlparse(s.observation.url).path
                    for s in seen
                    if urlparse(s.observation.url).path.startswith("/item/")
                    and "Item no.:" in s.observation.page_text
                }
                ok = len(pages) >= o.min_items
            else:
                ok = (
                    o.fact is not None
                    and observed(site, item, o.page or "item", o.fact, seen) is not None
                )
            if not ok:
                evidence_ok = False
                reasons.append(f"evidence: {o.id} not observed before the answer")

    # Blockers: each material blocker resolved by its fact, shown with a resolved value.
    blocker_ok = True
    for b in contract.blocker_checks:
        value = observed(site, item, b.page, b.fact, seen) if item is not None else None
        if value is None or value in b.open_values:
            blocker_ok = False
            reasons.append(f"blocker: {b.id} ({b.text}) left unresolved")
    return Gates(
        terminal=terminal_ok,
        hard=hard_ok,
        evidence=evidence_ok,
        answer=answer_ok,
        blocker=blocker_ok,
        reasons=reasons,
    )
