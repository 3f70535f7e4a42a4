"""report.md (tables and plots) and report.json (for scripts) from the demo's stage summaries."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from pathwise.demo.config import DemoConfig

_OFFLINE_KEYS = (
    "n",
    "ast_validity",
    "action_match",
    "target_match",
    "action_and_target_match",
    "exact_action_match",
)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _plot_tasks(per_task: dict[str, dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    tasks = list(per_task)
    x = np.arange(len(tasks))
    fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(tasks)), 3.5))
    ax.bar(x - 0.2, [per_task[t]["reference_rate"] for t in tasks], 0.4, label="teacher")
    ax.bar(x + 0.2, [per_task[t]["candidate_rate"] for t in tasks], 0.4, label="student")
    ax.set_xticks(x, tasks, rotation=35, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("success (raw reward 1)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_losses(curves: dict[str, list[float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    offset = 0
    for name, losses in curves.items():
        if not losses:
            continue
        ax.plot(range(offset, offset + len(losses)), losses, label=name)
        offset += len(losses)
    ax.set_xlabel("logging step")
    ax.set_ylabel("training loss")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(cfg: DemoConfig, out: Path, s: dict[str, Any]) -> dict[str, Any]:
    timings = {k: round(v.get("seconds", 0.0), 1) for k, v in s.items()}
    if "evaluate" in s:
        timings.update({k: round(v, 1) for k, v in s["evaluate"]["timings"].items()})
    report: dict[str, Any] = {
        "recipe": cfg.name,
        "tasks": cfg.tasks,
        "train_seeds": cfg.train_seeds,
        "heldout_seeds": cfg.heldout_seeds,
        "teacher": {
            "train_success": s["collect"]["success_rate"],
            "heldout_success": s["reference"]["success_rate"],
            "heldout_tasks": s["reference"]["tasks"],
        },
        "stage_seconds": timings,
        "total_seconds": round(sum(v.get("seconds", 0.0) for v in s.values()), 1),
    }
    md = [f"# Pathwise demo report ({cfg.name})", ""]
    md += [
        f"Tasks: {', '.join(cfg.tasks)}; teacher rollouts on seeds {cfg.train_seeds}, "
        f"held-out seeds {cfg.heldout_seeds}.",
        "",
    ]
    if "evaluate" in s:
        ev = s["evaluate"]
        off = ev["offline"]["metrics"]
        live = ev["live"]["results"]
        cand, ref = live["candidate"], live["reference"]
        manifest = s["export"]["manifest"]
        glob = (ev.get("offline_global") or {}).get("metrics")
        decoding = "grounded" if cfg.grounded_schema else "global"
        report["offline"] = {
            "decoding_schema": decoding,
            **{k: off.get(k) for k in _OFFLINE_KEYS},
            "prompt_overlap": manifest.get("prompt_overlap"),
        }
        if glob:
            report["offline_global_schema"] = {k: glob.get(k) for k in _OFFLINE_KEYS}
        report["live"] = {
            "episodes": cand["episodes"],
            "student_success": cand["all"]["rate"],
            "teacher_success": ref["all"]["rate"],
            "student_over_teacher": (cand["all"]["rate"] or 0) / ref["all"]["rate"]
            if ref["all"]["rate"]
            else None,
            "denominators": {
                d: {"student": cand[d]["rate"], "teacher": ref[d]["rate"], "n": cand[d]["n"]}
                for d in ("all", "unblocked", "clean")
            },
            "mcnemar_p": live["paired"]["all"]["mcnemar_p"],
            "bootstrap": live["paired"]["all"]["bootstrap"],
            "per_task": live["per_task"],
        }
        report["training"] = {
            k: {
                "steps": s[k]["global_step"],
                "first_loss": s[k]["train_losses"][0],
                "last_loss": s[k]["train_losses"][-1],
            }
            for k in ("train_base", "train_adapter")
            if k in s and s[k]["train_losses"]
        }
        report["headline"] = {
            "offline.ast_validity": off["ast_validity"],
            "offline.action_match": off["action_match"],
            "offline.target_match": off["target_match"],
            "live.student_success": cand["all"]["rate"],
            "live.teacher_success": ref["all"]["rate"],
            "live.episodes": cand["episodes"],
        }
        _plot_tasks(live["per_task"], out / "tasks.png")
        _plot_losses(
            {
                "base stage": s.get("train_base", {}).get("train_losses", []),
                "adapter stage": s["train_adapter"]["train_losses"],
            },
            out / "loss.png",
        )
        cm = Path(ev["offline"]["out"]) / "confusion_matrix.png"
        if cm.exists():
            shutil.copy(cm, out / "confusion_matrix.png")
        po = manifest.get("prompt_overlap") or {}
        md += [
            "## Offline: held-out post-guard action and target match",
            "",
            "| decoding schema | examples | AST validity | action match | target match | both "
            "| exact action |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
            *[
                f"| {name} | {m['n']} | {_pct(m['ast_validity'])} | {_pct(m['action_match'])} | "
                f"{_pct(m['target_match'])} | {_pct(m['action_and_target_match'])} | "
                f"{_pct(m.get('exact_action_match'))} |"
                for name, m in ((decoding, off), ("global", glob))
                if m
            ],
            "",
            "The *grounded* schema is built per step (target among the visible labels, typed "
            "text the command's payload; agent_runtime/middle/grounded_schema.py); "
            "the *global* one is the Action AST schema every step shares."
            if glob
            else "Decoding used the global Action AST schema.",
            "",
            "AST validity, action match and target match are WebRider Appendix E's definitions; "
            "*exact action* also requires the typed text (and every other field) to match.",
            "",
            f"Prompt overlap: {po.get('eval_prompts_in_train', '?')} of "
            f"{po.get('eval_prompts', '?')} held-out prompts also occur in training "
            f"({_pct(po.get('share'))}).",
            "",
            "![confusion matrix](confusion_matrix.png)",
            "",
            "## Live insertion (rule top, guards and executor fixed)",
            "",
            f"The student decodes with the {decoding} schema.",
            "",
            "| denominator | episodes | student | teacher |",
            "| --- | ---: | ---: | ---: |",
        ]
        for d in ("all", "unblocked", "clean"):
            md.append(
                f"| {d} | {cand[d]['n']} | {_pct(cand[d]['rate'])} | {_pct(ref[d]['rate'])} |"
            )
        bs = live["paired"]["all"]["bootstrap"]
        md += [
            "",
            f"Exact McNemar p = {live['paired']['all']['mcnemar_p']:.4g}; paired bootstrap of the "
            f"difference (student - teacher): {bs}.",
            "",
            "| task | episodes | student | teacher |",
            "| --- | ---: | ---: | ---: |",
        ]
        for t, r in live["per_task"].items():
            md.append(
                f"| {t} | {r['n']} | {_pct(r['candidate_rate'])} | {_pct(r['reference_rate'])} |"
            )
        md += [
            "",
            "![teacher vs student per task](tasks.png)",
            "",
            "## Training",
            "",
            "![training loss](loss.png)",
            "",
        ]
        for k, v in report["training"].items():
            md.append(
                f"- {k}: {v['steps']} steps, loss {v['first_loss']:.3f} -> {v['last_loss']:.3f}"
            )
        md.append("")
    else:
        report["headline"] = {"teacher_heldout_success": s["reference"]["success_rate"]}
        md += ["## Teacher", "", "| task | episodes | successes |", "| --- | ---: | ---: |"]
        for t, r in s["reference"]["tasks"].items():
            md.append(f"| {t} | {r['episodes']} | {r['successes']} |")
        md.append("")
    md += ["## Stage timings (s)", "", "| stage | seconds |", "| --- | ---: |"]
    md += [f"| {k} | {v} |" for k, v in timings.items()]
    (out / "report.md").write_text("\n".join(md) + "\n")
    return report
