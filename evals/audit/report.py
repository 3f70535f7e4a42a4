"""`pathwise audit report`: WebRider Appendix G, Tables 31-32 and Table 3 Panel B.

PCS per rollout and pooled per arm with Wilson intervals; the two-sided Wilcoxon signed-rank
test on the pairs' rollout-level PCS differences; net HCP with ties and neither in the
denominator, the decisive A-win rate with its Wilson interval and the exact sign test; Fleiss'
kappa on the shared anchors; and, where runs carry automatic CGS gates, their agreement with the
human gate labels (Table 32) and the PCS-CGS overlap (Spearman rho, low-PCS CGS passes).
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any

from contracts.step_row import RolloutOutcome
from evals import stats
from evals.audit.aggregate import hcp_counts, pair_majority, rollout_pcs, step_majority
from evals.audit.store import GATES, PAIR_LABELS, STEP_LABELS, connect, read_meta


def _load(con: sqlite3.Connection) -> dict[str, Any]:
    q = lambda sql: [dict(r) for r in con.execute(sql)]  # noqa: E731
    return {
        "meta": read_meta(con),
        "pairs": q("SELECT pair_id, contract_id, kind FROM pairs ORDER BY pair_id"),
        "rollouts": q("SELECT rollout_key, pair_id, arm, rollout_id, outcome_json FROM rollouts"),
        "steps": q("SELECT rollout_key, step_index FROM steps ORDER BY rollout_key, step_index"),
        "slots": q("SELECT slot, rater FROM slots ORDER BY slot"),
        "assign": q("SELECT slot, pair_id FROM assignments"),
        "step_labels": q("SELECT slot, rollout_key, step_index, label FROM step_labels"),
        "pair_labels": q("SELECT slot, pair_id, choice FROM pair_labels"),
        "gate_labels": q("SELECT slot, rollout_key, gate, label FROM gate_labels"),
    }


def _rate(k: int, n: int, confidence: float) -> dict[str, Any]:
    ci = stats.wilson_interval(k, n, confidence)
    return {"k": k, "n": n, "rate": k / n if n else None, "ci": list(ci) if ci else None}


def build_report(path: Path) -> dict[str, Any]:
    with connect(path) as con:
        d = _load(con)
    settings = d["meta"]["settings"]
    conf = float(settings["confidence"])
    raters_of: dict[int, list[int]] = defaultdict(list)
    for a in d["assign"]:
        raters_of[a["pair_id"]].append(a["slot"])
    step_votes: dict[tuple[int, int], dict[int, str]] = defaultdict(dict)
    for lab in d["step_labels"]:
        step_votes[(lab["rollout_key"], lab["step_index"])][lab["slot"]] = lab["label"]
    pair_votes: dict[int, dict[int, str]] = defaultdict(dict)
    for lab in d["pair_labels"]:
        pair_votes[lab["pair_id"]][lab["slot"]] = lab["choice"]
    gate_votes: dict[tuple[int, str], list[str]] = defaultdict(list)
    for lab in d["gate_labels"]:
        gate_votes[(lab["rollout_key"], lab["gate"])].append(lab["label"])
    steps_of: dict[int, list[int]] = defaultdict(list)
    for s in d["steps"]:
        steps_of[s["rollout_key"]].append(s["step_index"])

    rollouts: dict[tuple[int, str], dict[str, Any]] = {}
    for r in d["rollouts"]:
        votes = [step_votes.get((r["rollout_key"], i), {}) for i in steps_of[r["rollout_key"]]]
        agg = [step_majority(v.values()) if v else "unrated" for v in votes]
        p = rollout_pcs(agg)
        raw = r["outcome_json"]
        outcome = RolloutOutcome.model_validate_json(raw) if raw else None
        rollouts[(r["pair_id"], r["arm"])] = {
            "key": r["rollout_key"],
            "rollout_id": r["rollout_id"],
            "consistent": p.consistent,
            "judgeable": p.judgeable,
            "cj_steps": p.cj_steps,
            "unrated_steps": agg.count("unrated"),
            "pcs": p.pcs,
            "cgs": outcome.gates.cgs if outcome and outcome.gates else None,
            "gates": outcome.gates.model_dump() if outcome and outcome.gates else None,
        }

    pairs, diffs, prefs = [], [], []
    for pr in d["pairs"]:
        a, b = rollouts[(pr["pair_id"], "A")], rollouts[(pr["pair_id"], "B")]
        votes = pair_votes.get(pr["pair_id"], {})
        hcp = pair_majority(votes.values()) if votes else "unrated"
        diff = a["pcs"] - b["pcs"] if a["pcs"] is not None and b["pcs"] is not None else None
        if diff is not None:
            diffs.append(diff)
        if hcp != "unrated":
            prefs.append(hcp)
        pairs.append(
            {
                **pr,
                "raters": len(raters_of[pr["pair_id"]]),
                "A": a,
                "B": b,
                "pcs_diff": diff,
                "hcp": hcp,
            }
        )

    pooled = {}
    for arm in ("A", "B"):
        rs = [rollouts[(p["pair_id"], arm)] for p in d["pairs"]]
        c, j = sum(r["consistent"] for r in rs), sum(r["judgeable"] for r in rs)
        pooled[arm] = {
            **_rate(c, j, conf),
            "cj_steps": sum(r["cj_steps"] for r in rs),
            "unrated_steps": sum(r["unrated_steps"] for r in rs),
            "cj_rollouts": sum(r["pcs"] is None for r in rs),
        }
    ra, rb = pooled["A"]["rate"], pooled["B"]["rate"]
    counts = hcp_counts(prefs)
    report = {
        "study": {
            "path": str(path),
            "arms": d["meta"]["arms"],
            "settings": settings,
            "pairs": len(d["pairs"]),
            "anchors": sum(p["kind"] == "anchor" for p in d["pairs"]),
            "gate_labels": bool(d["meta"].get("gate_labels")),
        },
        "raters": _raters(d, steps_of, raters_of),
        "pcs": {
            **pooled,
            "delta_pp": 100 * (ra - rb) if ra is not None and rb is not None else None,
            "wilcoxon": stats.wilcoxon_signed_rank(diffs),
        },
        "hcp": {
            "A": counts.a,
            "B": counts.b,
            "tie": counts.tie,
            "neither": counts.neither,
            "cj": counts.cj,
            "unrated": len(d["pairs"]) - len(prefs),
            "N": counts.n,
            "net": counts.net,
            "decisive_a": _rate(counts.a, counts.a + counts.b, conf),
            "sign_test_p": stats.sign_test(counts.a, counts.b),
        },
        "agreement": _kappas(d, steps_of, step_votes, pair_votes),
        "gates": _gates(rollouts, gate_votes, bool(d["meta"].get("gate_labels"))),
        "overlap": _overlap(rollouts, float(settings["low_pcs"])),
        "pairs": pairs,
    }
    return report


def _raters(d: dict, steps_of: dict, raters_of: dict) -> list[dict[str, Any]]:
    key_of = {(r["pair_id"], r["arm"]): r["rollout_key"] for r in d["rollouts"]}
    out = []
    for s in d["slots"]:
        mine = [p for p, slots in raters_of.items() if s["slot"] in slots]
        need = sum(len(steps_of[key_of[(p, arm)]]) for p in mine for arm in ("A", "B"))
        out.append(
            {
                "slot": s["slot"],
                "rater": s["rater"],
                "pairs": len(mine),
                "pairs_labelled": sum(1 for lab in d["pair_labels"] if lab["slot"] == s["slot"]),
                "steps": need,
                "steps_labelled": sum(1 for lab in d["step_labels"] if lab["slot"] == s["slot"]),
            }
        )
    return out


def _kappas(d: dict, steps_of: dict, step_votes: dict, pair_votes: dict) -> dict[str, Any]:
    """Fleiss' kappa over anchor items every signed-in anchor rater labelled."""
    slots = [s["slot"] for s in d["slots"]]
    anchors = {p["pair_id"] for p in d["pairs"] if p["kind"] == "anchor"}
    keys = [r["rollout_key"] for r in d["rollouts"] if r["pair_id"] in anchors]
    step_items = []
    for k in keys:
        for i in steps_of[k]:
            v = step_votes.get((k, i), {})
            if all(s in v for s in slots):
                step_items.append([v[s] for s in slots])
    pair_items = [
        [pair_votes[p][s] for s in slots]
        for p in sorted(anchors)
        if all(s in pair_votes.get(p, {}) for s in slots)
    ]
    return {
        "raters": len(slots),
        "pcs_steps": len(step_items),
        "kappa_pcs": stats.fleiss(step_items, STEP_LABELS) if step_items else None,
        "hcp_pairs": len(pair_items),
        "kappa_hcp": stats.fleiss(pair_items, PAIR_LABELS) if pair_items else None,
    }


def _gates(rollouts: dict, gate_votes: dict, collected: bool) -> dict[str, Any]:
    """Automatic gates vs the raters' majority gate labels (Table 32's rows)."""
    rows: dict[str, dict[str, Any]] = {}
    pairs_by: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for r in rollouts.values():
        if r["gates"] is None:
            continue
        human: dict[str, str] = {g: step_majority(gate_votes.get((r["key"], g), [])) for g in GATES}
        for g in GATES:
            if human[g] != "cj":
                pairs_by[g].append((bool(r["gates"][g]), human[g] == "yes"))
        if all(gate_votes.get((r["key"], g)) for g in GATES):
            # Human CGS is the conjunction: one failed gate fails it; an unsure gate with no
            # failed one leaves it undecided.
            if "no" in human.values():
                pairs_by["cgs"].append((bool(r["cgs"]), False))
            elif all(h == "yes" for h in human.values()):
                pairs_by["cgs"].append((bool(r["cgs"]), True))
    for g in (*GATES, "cgs"):
        got = pairs_by.get(g, [])
        n = len(got)
        rows[g] = {
            "n": n,
            "accuracy": sum(a == h for a, h in got) / n if n else None,
            "kappa": stats.cohen([a for a, _ in got], [h for _, h in got]) if n else None,
            "false_positive": sum(a and not h for a, h in got) / n if n else None,
        }
    return {"collected": collected, "rows": rows}


def _overlap(rollouts: dict, low: float) -> dict[str, Any]:
    both = [r for r in rollouts.values() if r["pcs"] is not None and r["cgs"] is not None]
    passing = [r for r in both if r["cgs"]]
    low_pass = sum(r["pcs"] < low for r in passing)
    return {
        "n": len(both),
        "spearman_rho": stats.spearman([r["pcs"] for r in both], [float(r["cgs"]) for r in both]),
        "cgs_passes": len(passing),
        "low_pcs_threshold": low,
        "low_pcs_cgs_passes": low_pass,
        "low_pcs_share": low_pass / len(passing) if passing else None,
    }


def write_json(report: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
