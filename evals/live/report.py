"""Markdown report of a live insertion: Table 51 denominators, paired tests, per-task table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.live.pairing import DENOMINATORS
from evals.plots import paired_bars_png

PER_TASK_PNG = "per_task_success.png"


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def pp(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:+.1f} pp"


def _ci(b: dict[str, Any] | None, fmt: Any = pct) -> str:
    if not b:
        return "–"
    return f"{fmt(b['estimate'])} [{fmt(b['ci_low'])}, {fmt(b['ci_high'])}]"


def render(results: dict[str, Any]) -> str:
    names = results["names"]
    cand, ref = results["candidate"], results["reference"]
    lines = [
        "# Live middle insertion",
        "",
        f"Candidate: `{names['candidate']}` (run `{results['candidate_run']}`); reference: "
        f"`{names['reference']}` (run `{results['reference_run']}`). Top layer, guards and "
        f"executor are the same in both; {results['paired_contracts']} contracts are paired "
        "by contract id (same tasks and seeds).",
        "",
        "Success is MiniWoB++ raw-reward success, or contract-gated success (CGS) where "
        "contracts carry gates. All uses every contract; Unblocked removes external-access "
        "failures; Clean also removes runtime failures (WebRider Table 51).",
        "",
        "| Run | N | All | Access | Runtime | Unblocked | Clean |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, r in ((names["candidate"], cand), (names["reference"], ref)):
        lines.append(
            f"| {label} | {r['episodes']} | {pct(r['all']['rate'])} | {pct(r['access_rate'])} "
            f"({r['access_blocked']}) | {r['runtime_failures']} | {pct(r['unblocked']['rate'])} "
            f"(n={r['unblocked']['n']}) | {pct(r['clean']['rate'])} (n={r['clean']['n']}) |"
        )
    lines += [
        "",
        "## Paired comparison (candidate − reference)",
        "",
        "Contracts kept by both runs under each denominator; exact McNemar on the discordant "
        "pairs (two-sided binomial); percentile bootstrap CIs resampling contracts in pairs "
        f"({results['bootstrap']['n_boot']} draws, seed {results['bootstrap']['seed']}).",
        "",
        "| Denominator | N | Candidate [95% CI] | Reference [95% CI] | Difference [95% CI] | "
        "cand only / ref only | McNemar p |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for d in DENOMINATORS:
        s = results["paired"][d]
        b = s["bootstrap"]
        t = s["table"]
        lines.append(
            f"| {d} | {s['n']} | {_ci(b['candidate'])} | {_ci(b['reference'])} | "
            f"{_ci(b['difference'], pp)} | {t['candidate_only']} / {t['reference_only']} | "
            f"{s['mcnemar_p']:.4g} |"
        )
    lines += [
        "",
        "## Per task (all contracts)",
        "",
        "| Task | N | Candidate | Reference | Access (cand/ref) | Runtime (cand/ref) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for task, r in results["per_task"].items():
        lines.append(
            f"| {task} | {r['n']} | {pct(r['candidate_rate'])} | {pct(r['reference_rate'])} | "
            f"{r['candidate_access']}/{r['reference_access']} | "
            f"{r['candidate_runtime']}/{r['reference_runtime']} |"
        )
    if results["per_task"]:
        lines += ["", f"![per-task success]({PER_TASK_PNG})"]
    un = results["unpaired"]
    if un["only_candidate"] or un["only_reference"]:
        lines += [
            "",
            f"Unpaired and left out: {len(un['only_candidate'])} contracts only in the candidate "
            f"run, {len(un['only_reference'])} only in the reference run.",
        ]
    tok = results.get("tokens") or {}
    if tok:
        lines += [
            "",
            "## Middle-layer tokens",
            "",
            "| Run | prompt | completion | per episode |",
            "| --- | ---: | ---: | ---: |",
        ]
        for label, key in ((names["candidate"], "candidate"), (names["reference"], "reference")):
            u = tok.get(key)
            if u:
                per = u["per_episode"]["prompt_tokens"]
                per_c = u["per_episode"]["completion_tokens"]
                per_s = "–" if per is None else f"{per:.0f} + {per_c:.0f}"
                lines.append(
                    f"| {label} | {u['prompt_tokens']} | {u['completion_tokens']} | {per_s} |"
                )
    lines.append("")
    return "\n".join(lines)


def write_report(folder: Path, results: dict[str, Any]) -> Path:
    tasks = list(results["per_task"])
    if tasks:
        paired_bars_png(
            tasks,
            [results["per_task"][t]["candidate_rate"] for t in tasks],
            [results["per_task"][t]["reference_rate"] for t in tasks],
            (results["names"]["candidate"], results["names"]["reference"]),
            folder / PER_TASK_PNG,
        )
    path = folder / "report.md"
    path.write_text(render(results), encoding="utf-8")
    return path
