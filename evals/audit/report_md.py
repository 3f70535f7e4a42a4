"""The audit report as Markdown, in the shape of WebRider Tables 31 and 32 and Table 3 Panel B."""

from __future__ import annotations

from typing import Any


def _n(k: int, noun: str) -> str:
    return f"{k} {noun}{'' if k == 1 else 's'}"


def _pct(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{100 * x:.{digits}f}%"


def _ci(r: dict[str, Any]) -> str:
    return "–" if not r.get("ci") else f"[{100 * r['ci'][0]:.1f}, {100 * r['ci'][1]:.1f}]"


def _num(x: float | None, fmt: str = ".3g") -> str:
    return "–" if x is None else format(x, fmt)


def _signed_pp(x: float | None) -> str:
    return "–" if x is None else f"{x:+.1f} pp"


def to_markdown(rep: dict[str, Any]) -> str:
    st, pcs, hcp = rep["study"], rep["pcs"], rep["hcp"]
    a, b = st["arms"]["A"], st["arms"]["B"]
    w = pcs["wilcoxon"]
    lines = [
        "# Blinded paired audit (WebRider Appendix G)",
        "",
        f"Study `{st['path']}`: {_n(st['pairs'], 'pair')} ({_n(st['anchors'], 'shared anchor')}, "
        f"{_n(st['pairs'] - st['anchors'], 'coverage pair')}), "
        f"{_n(len(rep['raters']), 'rater place')}.",
        f"Arm A = `{a['name']}` ({a['path']}); arm B = `{b['name']}` ({b['path']}).",
        "",
        "## Human-study outcome (Table 31)",
        "",
        "| Measure | N | A | B | Δ / net |",
        "| --- | --- | --- | --- | --- |",
        f"| Persona consistency | {st['pairs']} pairs | {pcs['A']['k']}/{pcs['A']['n']} "
        f"| {pcs['B']['k']}/{pcs['B']['n']} | {_signed_pp(pcs['delta_pp'])} |",
        f"| Human comfort | {hcp['N']} pairs | {hcp['A']} prefer | {hcp['B']} prefer "
        f"| {_signed_pp(None if hcp['net'] is None else 100 * hcp['net'])} |",
        "",
        f"- Pooled PCS: A {_pct(pcs['A']['rate'])} (95% Wilson {_ci(pcs['A'])}), "
        f"B {_pct(pcs['B']['rate'])} ({_ci(pcs['B'])}). CJ steps A {pcs['A']['cj_steps']}, "
        f"B {pcs['B']['cj_steps']}; CJ rollouts A {pcs['A']['cj_rollouts']}, "
        f"B {pcs['B']['cj_rollouts']}; unrated steps A {pcs['A']['unrated_steps']}, "
        f"B {pcs['B']['unrated_steps']}.",
        f"- Wilcoxon signed-rank on rollout-level PCS differences (two-sided): "
        f"n = {w['n']} pairs ({w['zeros_dropped']} zero differences dropped), "
        f"W = {_num(w['statistic'])}, p = {_num(w['p_value'])}.",
        f"- HCP (A, tie, B, neither) = ({hcp['A']}, {hcp['tie']}, {hcp['B']}, {hcp['neither']}); "
        f"CJ packets {hcp['cj']} (excluded), unrated {hcp['unrated']}. Net HCP "
        f"{_signed_pp(None if hcp['net'] is None else 100 * hcp['net'])} over N = {hcp['N']}.",
        f"- Decisive pairs: A wins {hcp['decisive_a']['k']}/{hcp['decisive_a']['n']} = "
        f"{_pct(hcp['decisive_a']['rate'])} (95% Wilson {_ci(hcp['decisive_a'])}); "
        f"exact sign test p = {_num(hcp['sign_test_p'])}.",
        "",
        "## Agreement on the shared anchors (Table 3, Panel B)",
        "",
        _agreement(rep["agreement"]),
        "",
        "## Automatic gates against the human gate labels (Table 32)",
        "",
        *_gates(rep["gates"]),
        "",
        _overlap(rep["overlap"]),
        "",
        "## Raters",
        "",
        "| Place | Rater | Pairs labelled | Steps labelled |",
        "| --- | --- | --- | --- |",
        *[
            f"| {r['slot']} | {r['rater'] or '(free)'} | {r['pairs_labelled']}/{r['pairs']} "
            f"| {r['steps_labelled']}/{r['steps']} |"
            for r in rep["raters"]
        ],
        "",
        "## Pairs",
        "",
        "| Pair | Kind | Contract | PCS A | PCS B | Δ | HCP | CGS A | CGS B |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *[_pair_row(p) for p in rep["pairs"]],
        "",
    ]
    return "\n".join(lines)


def _agreement(ag: dict[str, Any]) -> str:
    return (
        f"Fleiss' kappa over {ag['raters']} raters: step labels (yes/no/cannot-judge) "
        f"κ_P = {_num(ag['kappa_pcs'], '.2f')} on {_n(ag['pcs_steps'], 'anchor step')}; pair "
        f"preferences (A/B/tie/neither/cannot-judge) κ_H = {_num(ag['kappa_hcp'], '.2f')} "
        f"on {_n(ag['hcp_pairs'], 'anchor pair')}. Only items every rater labelled count."
    )


def _gates(g: dict[str, Any]) -> list[str]:
    if not g["collected"]:
        return [
            "This study did not collect human gate labels (create it with --gate-labels to "
            "calibrate the automatic gates)."
        ]
    out = ["| Gate | N | Accuracy | κ | False positive |", "| --- | --- | --- | --- | --- |"]
    for name, row in g["rows"].items():
        out.append(
            f"| {name} | {row['n']} | {_num(row['accuracy'], '.2f')} | "
            f"{_num(row['kappa'], '.2f')} | {_pct(row['false_positive'])} |"
        )
    out.append("")
    out.append(
        "False positive: the automatic gate passes where the raters' majority says it fails, "
        "as a share of the N rollouts with both labels."
    )
    return out


def _overlap(o: dict[str, Any]) -> str:
    if not o["n"]:
        return "PCS-CGS overlap: no rollout has both a PCS and automatic gates."
    return (
        f"PCS-CGS overlap on {o['n']} rollouts: Spearman ρ = {_num(o['spearman_rho'], '.2f')}; "
        f"{o['low_pcs_cgs_passes']} of {o['cgs_passes']} CGS passes "
        f"({_pct(o['low_pcs_share'])}) have PCS below {o['low_pcs_threshold']:g}."
    )


def _pair_row(p: dict[str, Any]) -> str:
    def side(r: dict[str, Any]) -> str:
        return f"{r['consistent']}/{r['judgeable']}" + (" (CJ)" if r["pcs"] is None else "")

    def cgs(r: dict[str, Any]) -> str:
        return "–" if r["cgs"] is None else ("pass" if r["cgs"] else "fail")

    diff = "–" if p["pcs_diff"] is None else f"{p['pcs_diff']:+.2f}"
    return (
        f"| {p['pair_id']} | {p['kind']} | {p['contract_id']} | {side(p['A'])} | "
        f"{side(p['B'])} | {diff} | {p['hcp']} | {cgs(p['A'])} | {cgs(p['B'])} |"
    )
