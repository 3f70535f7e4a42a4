"""Markdown for the contract benchmark: CGS under three denominators, gates, Table 14, timing."""

from __future__ import annotations

from typing import Any

from evals.live.report import pct


def _num(x: float | None, fmt: str = "{:.2f}") -> str:
    return "–" if x is None else fmt.format(x)


def render(results: dict[str, Any]) -> str:
    s, cf = results["summary"], results["counterfactuals"]
    cgs, g, t = s["cgs"], s["gates_unblocked"], s["timing"]
    lines = [
        f"# Contract-site benchmark: {results['policy']}",
        "",
        f"{s['rollouts']} contracts from `{results['contracts']}`; run folder `{results['run']}`. "
        "CGS = terminal ∧ hard ∧ evidence ∧ answer ∧ ¬blocker (WebRider Eq. 4). All uses every "
        "contract; Unblocked removes external-access failures; Clean also removes runtime failures "
        "(Tables 7 and 51).",
        "",
        "| All | Access | Runtime | Unblocked | Clean |",
        "| ---: | ---: | ---: | ---: | ---: |",
        f"| {pct(cgs['all']['rate'])} ({cgs['all']['successes']}/{cgs['all']['n']}) | "
        f"{pct(s['access_rate'])} ({s['access_blocked']}) | {s['runtime_failures']} | "
        f"{pct(cgs['unblocked']['rate'])} "
        f"({cgs['unblocked']['successes']}/{cgs['unblocked']['n']}) | "
        f"{pct(cgs['clean']['rate'])} ({cgs['clean']['successes']}/{cgs['clean']['n']}) |",
        "",
        "Wilson 95% interval, unblocked: "
        + (
            f"[{pct(cgs['unblocked']['wilson_95'][0])}, {pct(cgs['unblocked']['wilson_95'][1])}]"
            if cgs["unblocked"]["wilson_95"]
            else "–"
        ),
        "",
        "## Gates (unblocked contracts)",
        "",
        "| Terminal | Hard-C | Evidence | Answer | No open blocker | CGS |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        "| "
        + " | ".join(
            pct(g[k]) for k in ("terminal", "hard", "evidence", "answer", "blocker", "cgs")
        )
        + " |",
        "",
        f"Access signals: {s['access_signals'] or 'none'}. Terminal labels: {s['terminals']}.",
        "",
        "## Same-base-task counterfactuals (Table 14)",
        "",
        "| Groups | Policies / group | Unique sig. | Divergent | Diversity | CGS spread "
        "| Pair switches |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| {cf['groups']} | {_num(cf['policies_per_group'])} | {_num(cf['unique_signatures'])} | "
        f"{pct(cf['divergent_share'])} | {_num(cf['diversity_index'], '{:.3f}')} | "
        f"{pct(cf['cgs_spread_share'])} | "
        f"{pct(cf['pair_switch_share'])} of {cf['within_group_pairs']} |",
        "",
        "## Time per rollout",
        "",
        f"Mean {_num(t['mean_s'])} s, median {_num(t['median_s'])} s, p95 {_num(t['p95_s'])} s, "
        f"{_num(t['mean_steps'], '{:.1f}')} browser steps on average; "
        f"{_num(t.get('total_s'), '{:.0f}')} s "
        f"in all with {results['workers']} worker(s)."
        + (f" Machine: {results['machine']}." if results.get("machine") else ""),
    ]
    for title, key in (
        ("site", "by_site"),
        ("task mode", "by_mode"),
        ("persona policy", "by_persona"),
    ):
        lines += [
            "",
            f"## By {title}",
            "",
            "| | N | Access | CGS all | CGS unblocked |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for name, r in s[key].items():
            lines.append(
                f"| {name} | {r['n']} | {r['access_blocked']} | {pct(r['cgs_all'])} | "
                f"{pct(r['cgs_unblocked'])} |"
            )
    return "\n".join(lines) + "\n"
