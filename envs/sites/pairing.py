"""Persona pairing and the grouped split: WebRider Appendix C (Tables 13, 15) and Table 11.

Each base task is paired with explicit control plus 3-5 policies whose Table 13 discriminant can
change its route (search, verification, ranking, asking, stopping) on this site. Pairing only
adds: a persona-derived requirement becomes an extra evidence obligation, answer requirement or
trace constraint (Appendix D, "Persona coverage"); base hard constraints never relax.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

from contracts.intent import (
    EnvSpec,
    EvidenceObligation,
    HardConstraint,
    Inspect,
    IntentContract,
)
from contracts.persona import PersonaPolicy
from envs.sites.build import need
from envs.sites.model import BaseTask, Gold, SiteData, World

SPLIT_SEED = 20260606
SPLIT_SHARES = (("train", 10), ("dev", 2), ("test", 4))  # of 16 base tasks per site (Table 11)
RECOMMEND = ("select", "compare", "plan")
# Where a site's authority lives (trust-first goes there) and its total-cost fact, if any.
TRUST_PAGE = {
    "shop": ("Seller rating", "seller"),
    "booking": ("Total for 3 nights", "fees"),
    "docs": ("Latest firmware", "notes"),
    "directory": (None, "map"),
}
TOTAL_COST = {"shop": ("Shipping", "item"), "booking": ("Total for 3 nights", "fees")}

Applies = Callable[[BaseTask, Gold, SiteData], bool]
APPLICABLE: dict[str, Applies] = {
    "trust_first_verifier": lambda t, g, s: (
        "verification" in g.routes and TRUST_PAGE[s.name][0] is not None
    ),
    "spec_exact_researcher": lambda t, g, s: (
        sum(1 for h in t.hard_constraints if h.inspect and h.inspect.kind == "item_attr") >= 3
    ),
    "quality_first_explorer": lambda t, g, s: t.mode in RECOMMEND and "stopping" in g.routes,
    "local_context_planner": lambda t, g, s: t.geographic,
    "urgent_pragmatist": lambda t, g, s: "stopping" in g.routes,
    "uncertainty_averse": lambda t, g, s: bool(t.blockers),
    "brand_loyalist": lambda t, g, s: any("brand" in p.lower() for p in t.soft_preferences),
    "safety_privacy_guardian": lambda t, g, s: s.modal or any(i.wall == "login" for i in s.items),
    "diversity_explorer": lambda t, g, s: t.mode in RECOMMEND and len(g.valid) >= 2,
    "deal_hunter": lambda t, g, s: t.mode in RECOMMEND and s.name in TOTAL_COST,
    "sustainability_minded": lambda t, g, s: (
        t.mode in RECOMMEND and s.name in ("shop", "directory")
    ),
    "accessibility_seeker": lambda t, g, s: True,
    "convenience_novice": lambda t, g, s: s.modal,
    "budget_optimizer": lambda t, g, s: t.mode in RECOMMEND and s.name in TOTAL_COST,
}


def applicable_personas(task: BaseTask, gold: Gold, site: SiteData) -> list[str]:
    return [name for name, ok in APPLICABLE.items() if ok(task, gold, site)]


def choose_personas(task: BaseTask, gold: Gold, site: SiteData, seed: int) -> list[str]:
    """explicit_control plus 3-5 applicable policies, drawn with a per-task seeded RNG."""
    rng = random.Random(f"{seed}:{task.id}:personas")
    pool = applicable_personas(task, gold, site)
    k = min(len(pool), rng.choice([3, 4, 4, 5, 5]))
    return ["explicit_control", *sorted(rng.sample(pool, k))]


def persona_additions(
    persona: str, task: BaseTask, site: SiteData
) -> tuple[list[EvidenceObligation], list[HardConstraint], int]:
    """(extra obligations, extra hard constraints, min alternatives) a policy adds to its task."""
    extra: list[EvidenceObligation] = []
    hard: list[HardConstraint] = []
    alternatives = 0
    links = site.related_links
    if persona in ("quality_first_explorer", "diversity_explorer", "deal_hunter"):
        extra.append(
            EvidenceObligation(
                id="e_compare_two",
                text="At least two candidates' own pages inspected before answering",
                page="item",
                min_items=2,
            )
        )
    if persona == "diversity_explorer":
        alternatives = 1
    if persona == "trust_first_verifier":
        fact, page = TRUST_PAGE[site.name]
        if fact:
            extra.append(need(fact, page, links.get(page)))
    if persona in ("budget_optimizer", "deal_hunter") and site.name in TOTAL_COST:
        fact, page = TOTAL_COST[site.name]
        extra.append(need(fact, page, links.get(page)))
    if persona == "local_context_planner" and task.location:
        extra.append(need(f"Walking time from {task.location}", "map", links.get("map")))
    if persona == "spec_exact_researcher":
        for h in task.hard_constraints:
            ins = h.inspect
            if ins and ins.kind == "item_attr" and ins.field:
                extra.append(need(ins.field, ins.page, links.get(ins.page)))
    if persona == "safety_privacy_guardian":
        hard.append(
            HardConstraint(
                id="h_no_login",
                text="Never opens a sign-in page or types credentials",
                inspect=Inspect(kind="trace_never_visits", value="/login"),
            )
        )
    have = {o.id for o in task.evidence}
    uniq: list[EvidenceObligation] = []
    for o in extra:
        if o.id not in have:
            have.add(o.id)
            uniq.append(o)
    return uniq, hard, alternatives


def make_contract(task: BaseTask, persona: str, site: SiteData, seed: int) -> IntentContract:
    extra, hard, alternatives = persona_additions(persona, task, site)
    answer = task.answer
    if alternatives:
        answer = answer.model_copy(update={"min_alternatives": alternatives})
    return IntentContract(
        contract_id=f"{task.id}/{persona}",
        base_task_id=task.id,
        request=task.request,
        website=site.name,
        goal=task.goal,
        hard_constraints=[*task.hard_constraints, *hard],
        soft_preferences=task.soft_preferences,
        material_blockers=[b.text for b in task.blockers],
        blocker_checks=task.blockers,
        evidence_obligations=[*task.evidence, *extra],
        answer_schema=answer,
        persona=PersonaPolicy.named(persona),
        geographic=task.geographic,
        location=task.location,
        claims=task.claims,
        env=EnvSpec(kind="local_site", site=site.name, task=task.id, seed=seed, start_url="/"),
    )


def world_contracts(world: World) -> list[IntentContract]:
    out = []
    for task in world.tasks:
        site = world.sites[task.site]
        for persona in choose_personas(task, world.gold[task.id], site, world.seed):
            out.append(make_contract(task, persona, site, world.seed))
    return out


def split_of(world: World) -> dict[str, str]:
    """Base task id -> train/dev/test, grouped by base task and stratified by site."""
    out: dict[str, str] = {}
    for site in world.sites:
        ids = sorted(
            (t.id for t in world.tasks if t.site == site),
            key=lambda i: hashlib.sha256(f"{SPLIT_SEED}:{i}".encode()).hexdigest(),
        )
        total = sum(n for _, n in SPLIT_SHARES)
        pos = 0
        for name, n in SPLIT_SHARES:
            take = round(n * len(ids) / total) if name != SPLIT_SHARES[-1][0] else len(ids) - pos
            for i in ids[pos : pos + take]:
                out[i] = name
            pos += take
    return out
