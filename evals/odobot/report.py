"""OdoBot vs the full-observation baseline: success, tokens per task, amortization (Table IV).

Amortization, as in the paper's conclusion: the model's construction cost (description
tokens) divided by the tokens OdoBot saves per task is the number of tasks after which
building the model has paid for itself.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import fmean
from typing import Any

# OdoBot Section VII / VIII, for the comparison column (gpt-5.5, 45 Canvas tasks, 5 runs).
PAPER = {
    "odobot_success": 0.764,
    "agent_e_success": 0.854,
    "odobot_tokens_vs_agent_e": 0.56,  # "44% fewer tokens than Agent-E"
    "odobot_tokens_vs_webvoyager": 0.20,  # "80% fewer than WebVoyager"
    "construction_tokens": 10_300_000,
    "amortization_vs_agent_e": 676,
    "amortization_vs_webvoyager": 120,
}


def _rows(folder: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def summarize(out: Path) -> dict[str, Any]:
    odo = _rows(out / "runs" / "odobot")
    base = _rows(out / "runs" / "baseline")
    build = json.loads((out / "model" / "build.json").read_text())
    ids = sorted(odo.keys() & base.keys())
    if not ids:
        raise FileNotFoundError(f"{out / 'runs'}: no task has results from both arms yet")
    tasks = []
    for tid in ids:
        o, b = odo[tid], base[tid]
        tasks.append(
            {
                "task": tid,
                "template": o["template"],
                "odobot_success": o["success"],
                "odobot_prompt_tokens": o["prompt_tokens"],
                "odobot_completion_tokens": o["completion_tokens"],
                "odobot_prompts": len(o["prompts"]),
                "odobot_reason": o["reason"] if not o["success"] else "",
                "cursor_relocations": o["cursor_relocations"],
                "element_relocations": o["element_relocations"],
                "baseline_success": b["success"],
                "baseline_prompt_tokens": b["prompt_tokens"],
                "baseline_completion_tokens": b["completion_tokens"],
                "baseline_steps": b["steps"],
            }
        )

    def mean(key: str) -> float:
        return round(fmean(t[key] for t in tasks), 1)

    o_tok = mean("odobot_prompt_tokens") + mean("odobot_completion_tokens")
    b_tok = mean("baseline_prompt_tokens") + mean("baseline_completion_tokens")
    saved = b_tok - o_tok
    construction = build["construction_tokens"]
    summary = {
        "tasks": len(tasks),
        "odobot_success": round(fmean(t["odobot_success"] for t in tasks), 3),
        "baseline_success": round(fmean(t["baseline_success"] for t in tasks), 3),
        "odobot_prompt_tokens_per_task": mean("odobot_prompt_tokens"),
        "odobot_completion_tokens_per_task": mean("odobot_completion_tokens"),
        "baseline_prompt_tokens_per_task": mean("baseline_prompt_tokens"),
        "baseline_completion_tokens_per_task": mean("baseline_completion_tokens"),
        "prompt_token_ratio": round(
            mean("odobot_prompt_tokens") / max(1e-9, mean("baseline_prompt_tokens")), 3
        ),
        "tokens_saved_per_task": round(saved, 1),
        "construction_tokens": construction,
        "amortization_tasks": math.ceil(construction / saved) if saved > 0 else None,
        "cursor_relocations": sum(t["cursor_relocations"] for t in tasks),
        "element_relocations": sum(t["element_relocations"] for t in tasks),
        "model": build["stats"],
    }
    return {"summary": summary, "paper": PAPER, "tasks": tasks}


def markdown(rep: dict[str, Any], meta: dict[str, Any]) -> str:
    s, p = rep["summary"], rep["paper"]
    lines = [
        "# OdoBot vs the full-observation baseline on the local LMS",
        "",
        f"{s['tasks']} held-out task instances (one per template; a seed, names, orders and a "
        "banner never demonstrated). Tokens are counted with the served student's tokenizer "
        f"({meta.get('tokenizer', 'SmolLM2-135M-Instruct')}). Both arms' answers come from a "
        "deterministic oracle reading the task's parameters, so the comparison is about what "
        "each arm must send a model and whether the graph reaches the side effect; success is "
        "the side effect found in the LMS database.",
        "",
        "| | OdoBot (here) | full-observation baseline (here) | paper: OdoBot vs Agent-E |",
        "| --- | --- | --- | --- |",
        f"| task success | {s['odobot_success']:.1%} | {s['baseline_success']:.1%} | "
        f"{p['odobot_success']:.1%} vs {p['agent_e_success']:.1%} |",
        f"| prompt tokens / task | {s['odobot_prompt_tokens_per_task']:,.0f} | "
        f"{s['baseline_prompt_tokens_per_task']:,.0f} | |",
        f"| completion tokens / task | {s['odobot_completion_tokens_per_task']:,.0f} | "
        f"{s['baseline_completion_tokens_per_task']:,.0f} | |",
        f"| prompt tokens, OdoBot / baseline | {s['prompt_token_ratio']:.1%} | 100% | "
        f"{p['odobot_tokens_vs_agent_e']:.0%} (vs WebVoyager {p['odobot_tokens_vs_webvoyager']:.0%}) |",  # noqa: E501
        f"| model construction (description tokens) | {s['construction_tokens']:,} | | "
        f"{p['construction_tokens']:,} |",
        f"| amortization point (tasks) | {s['amortization_tasks']} | | "
        f"{p['amortization_vs_agent_e']} vs Agent-E, {p['amortization_vs_webvoyager']} vs "
        "WebVoyager |",
        "",
        f"Model: {s['model']['vertices']} vertices, {s['model']['edges']} edges from "
        f"{s['model']['trajectories']} demonstrations ({s['model']['events']} events), "
        f"{s['model']['dynamic_vertices']} dynamicXpath click vertices. Re-locations during "
        f"the runs: {s['cursor_relocations']} cursor, {s['element_relocations']} element.",
        "",
        "| task | OdoBot | prompts | OdoBot prompt tok | baseline | steps | baseline prompt tok |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for t in rep["tasks"]:
        lines.append(
            f"| {t['template']} | {'ok' if t['odobot_success'] else 'FAIL'} | "
            f"{t['odobot_prompts']} | {t['odobot_prompt_tokens']} | "
            f"{'ok' if t['baseline_success'] else 'FAIL'} | {t['baseline_steps']} | "
            f"{t['baseline_prompt_tokens']} |"
        )
    fails = [t for t in rep["tasks"] if not t["odobot_success"]]
    if fails:
        lines += ["", "OdoBot failures:", ""]
        lines += [f"- {t['template']}: {t['odobot_reason'] or 'no side effect'}" for t in fails]
    if meta:
        lines += ["", "Run: " + ", ".join(f"{k} {v}" for k, v in meta.items())]
    return "\n".join(lines) + "\n"


def write_report(out: Path, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    rep = summarize(out)
    rep["meta"] = meta or {}
    (out / "report.json").write_text(json.dumps(rep, indent=1) + "\n")
    (out / "report.md").write_text(markdown(rep, rep["meta"]))
    return rep
