"""Markdown report of an offline eval: headline metrics, per-type table, confusion matrix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.plots import confusion_png

CONFUSION_PNG = "confusion_matrix.png"


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.2f}%"


def render(results: dict[str, Any]) -> str:
    m = results["metrics"]
    cfg = results["config"]
    lines = [
        "# Offline action/target match",
        "",
        f"Model: `{cfg['model_label']}`; dataset `{cfg['dataset']}` split `{cfg['split']}`; "
        f"{'vision' if cfg['vision'] else 'text-only'} requests with the Action AST JSON Schema "
        "as structured output.",
        "",
        "Definitions (WebRider Appendix E): AST validity = parseable JSON object with a "
        "normalized action type and a fallback object; action match = exact equality of the "
        "normalized predicted and guarded-target action types; target match = exact equality "
        "of their visible UI labels (the empty label for actions without a UI target).",
        "",
        "| N | AST validity | Action match | Target match | Action & target |",
        "| ---: | ---: | ---: | ---: | ---: |",
        f"| {m['n']} | {pct(m['ast_validity'])} | {pct(m['action_match'])} | "
        f"{pct(m['target_match'])} | {pct(m['action_and_target_match'])} |",
        "",
    ]
    if results["request_errors"]:
        lines += [
            f"**{results['request_errors']} of {results['examples']} requests failed** and are "
            "not scored (see results.json `errors`).",
            "",
        ]
    if m["invalid_reasons"]:
        lines += [
            "Invalid outputs by reason: "
            + ", ".join(f"{k} {v}" for k, v in sorted(m["invalid_reasons"].items())),
            "",
        ]
    lines += [
        "## Per target action type",
        "",
        "| type | N | AST validity | Action match | Target match |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for t, row in results["per_type"].items():
        lines.append(
            f"| {t} | {row['n']} | {pct(row['ast_validity'])} | {pct(row['action_match'])} | "
            f"{pct(row['target_match'])} |"
        )
    cm = results["confusion_matrix"]
    lines += [
        "",
        "## Confusion matrix (rows: target type, columns: predicted type)",
        "",
        "| target \\ predicted | " + " | ".join(cm["cols"]) + " |",
        "| --- | " + " | ".join("---:" for _ in cm["cols"]) + " |",
    ]
    for r, counts in zip(cm["rows"], cm["counts"], strict=True):
        if sum(counts):
            lines.append(f"| {r} | " + " | ".join(str(c) for c in counts) + " |")
    lines += ["", f"![confusion matrix]({CONFUSION_PNG})", ""]
    tok = results["tokens"]
    timing = results["timing"]
    lines += [
        "## Cost",
        "",
        f"Tokens: {tok['prompt_tokens']} prompt + {tok['completion_tokens']} completion over "
        f"{tok['calls_with_usage']} calls. Wall time {timing['wall_s']} s "
        f"({timing['examples_per_s']} examples/s).",
        "",
    ]
    ov = results.get("prompt_overlap")
    if ov:
        lines += [
            "## Prompt overlap between splits",
            "",
            f"{ov.get('eval_prompts_in_train')} of {ov.get('eval_prompts')} held-out prompts "
            f"({pct(ov.get('share'))}) also occur verbatim in the training split (from the "
            "dataset manifest); matches on those measure recall more than generalisation.",
            "",
        ]
    new = results.get("metrics_new_prompts")
    if new and new["n"]:
        lines += [
            f"On the {new['n']} held-out steps whose prompt never occurs in training: action "
            f"match {pct(new['action_match'])}, target match {pct(new['target_match'])}, AST "
            f"validity {pct(new['ast_validity'])}.",
            "",
        ]
    return "\n".join(lines)


def write_report(folder: Path, results: dict[str, Any]) -> Path:
    confusion_png(results["confusion_matrix"], folder / CONFUSION_PNG)
    path = folder / "report.md"
    path.write_text(render(results), encoding="utf-8")
    return path
