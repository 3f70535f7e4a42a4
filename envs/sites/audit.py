"""Deterministic task and pairing audit before any rollout: WebRider Appendix B, Tables 10-11.

The task audit checks every base task (no persona names in the request, inspectable hard
constraints whose facts the site shows, evidence obligations naming a fact and a page, an answer
form, a non-empty gold); the pairing audit checks every contract (the generic contract audit, the
base task's constraints and obligations kept, a policy whose discriminant can change the route).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from contracts.audit import audit_contract
from contracts.intent import IntentContract
from contracts.persona import PERSONA_LIBRARY
from envs.sites.facts import fact_of
from envs.sites.model import BaseTask, World
from envs.sites.pairing import APPLICABLE, split_of


def audit_task(task: BaseTask, world: World) -> list[str]:
    site = world.sites[task.site]
    gold = world.gold[task.id]
    out: list[str] = []
    low = task.request.lower()
    if any(n.replace("_", " ") in low for n in PERSONA_LIBRARY):
        out.append("persona_name_in_request")
    for h in task.hard_constraints:
        ins = h.inspect
        if ins is None:
            out.append(f"hard_constraint_not_inspectable:{h.id}")
        elif ins.kind in ("item_attr", "item_best") and not any(
            fact_of(site, i, ins.page, ins.field or "") is not None for i in site.items
        ):
            out.append(f"hard_constraint_fact_never_shown:{h.id}")
    if not task.evidence:
        out.append("no_evidence_obligations")
    out += [
        f"obligation_without_fact_or_page:{o.id}" for o in task.evidence if not (o.fact and o.page)
    ]
    if not task.answer.fields:
        out.append("no_answer_form")
    if not gold.valid:
        out.append("no_gold_selection")
    if task.answer.form == "evidence_answer" and not gold.expected:
        out.append("no_gold_answer")
    return out


def audit_pairing(contract: IntentContract, world: World) -> list[str]:
    out = [f.value for f in audit_contract(contract)]
    task = world.task(contract.base_task_id)
    have_h = {h.id for h in contract.hard_constraints}
    have_e = {o.id for o in contract.evidence_obligations}
    if any(h.id not in have_h for h in task.hard_constraints):
        out.append("base_hard_constraint_dropped")
    if any(o.id not in have_e for o in task.evidence):
        out.append("base_evidence_dropped")
    name = contract.persona.name
    ok = APPLICABLE.get(name)
    routes = set(world.gold[task.id].routes)
    if name != "explicit_control" and (
        ok is None or not ok(task, world.gold[task.id], world.sites[task.site])
    ):
        out.append("policy_cannot_change_route")
    elif not routes & contract.persona.controls():
        out.append("policy_controls_no_open_route")
    return out


def audit_world(world: World, contracts: list[IntentContract]) -> dict[str, Any]:
    """Table 10 counts plus Table 11 strata, and every named failure."""
    task_fail = {t.id: f for t in world.tasks if (f := audit_task(t, world))}
    pair_fail = {c.contract_id: f for c in contracts if (f := audit_pairing(c, world))}
    split = split_of(world)
    modes = {t.id: t.mode for t in world.tasks}
    forms = {t.id: t.answer.form for t in world.tasks}
    diff = {t.id: t.difficulty for t in world.tasks}
    return {
        "base_tasks": len(world.tasks),
        "websites": len(world.sites),
        "contracts": len(contracts),
        "task_audit_pass": len(world.tasks) - len(task_fail),
        "pairing_audit_pass": len(contracts) - len(pair_fail),
        "persona_names_in_requests": sum(
            "persona_name_in_request" in f for f in task_fail.values()
        ),
        "task_failures": task_fail,
        "pairing_failures": pair_fail,
        "policies_per_task": round(len(contracts) / max(1, len(world.tasks)), 2),
        "strata": {
            "mode": dict(Counter(modes[c.base_task_id] for c in contracts)),
            "output": dict(Counter(forms[c.base_task_id] for c in contracts)),
            "difficulty": dict(Counter(diff[c.base_task_id] for c in contracts)),
            "site": dict(Counter(c.env.site for c in contracts)),
            "persona": dict(Counter(c.persona.name for c in contracts)),
            "split_contracts": dict(Counter(split[c.base_task_id] for c in contracts)),
            "split_base_tasks": dict(Counter(split.values())),
        },
    }


def audit_markdown(report: dict[str, Any]) -> str:
    rows = [
        ("Base tasks", report["base_tasks"]),
        ("Websites", report["websites"]),
        ("Contracts", report["contracts"]),
        ("Task-audit pass", f"{report['task_audit_pass']} / {report['base_tasks']}"),
        ("Pairing-audit pass", f"{report['pairing_audit_pass']} / {report['contracts']}"),
        ("Persona names in requests", report["persona_names_in_requests"]),
        ("Policies per base task", report["policies_per_task"]),
    ]
    lines = [
        "# Contract-site audit (WebRider Tables 10-11)",
        "",
        "| Check | Observed |",
        "| --- | ---: |",
    ]
    lines += [f"| {k} | {v} |" for k, v in rows]
    for name, counts in report["strata"].items():
        lines += [
            "",
            f"**{name}**: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=str)),
        ]
    for kind in ("task_failures", "pairing_failures"):
        for key, fails in report[kind].items():
            lines.append(f"- {key}: {', '.join(fails)}")
    return "\n".join(lines) + "\n"
