"""The plan as a picture: KnowPlan, DegreeMap (Figure 3, a term-indexed plan): terms as
columns, one box per course, an arrow for each prerequisite edge between planned courses."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def draw_plan(result: dict[str, Any], path: Path, rank: int = 1) -> Path | None:
    """Write the plan of `rank` as an image (the suffix picks the format, e.g. .svg)."""
    plan = next((p for p in result.get("plans", []) if p["rank"] == rank), None)
    if plan is None or not plan["courses"]:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    terms = sorted({c["term"] for c in plan["courses"]})
    col = {t: i for i, t in enumerate(terms)}
    rows: dict[int, int] = {}
    pos: dict[str, tuple[float, float]] = {}
    for c in sorted(plan["courses"], key=lambda c: (c["term"], c["course"])):
        r = rows.get(c["term"], 0)
        rows[c["term"]] = r + 1
        pos[c["course"]] = (col[c["term"]] * 2.2, -r * 0.9)
    height = max(rows.values())
    fig, ax = plt.subplots(figsize=(max(6.0, 1.9 * len(terms)), max(3.0, 0.75 * height + 1.2)))
    for c in plan["courses"]:
        x, y = pos[c["course"]]
        counted = bool(c.get("counts_for"))
        ax.text(
            x,
            y,
            c["course"],
            ha="center",
            va="center",
            fontsize=8,
            bbox={
                "boxstyle": "round,pad=0.3",
                "fc": "#dbe9f6" if counted else "#f3f3f3",
                "ec": "#2b6cb0" if counted else "#999999",
            },
        )
        for d in c.get("unlocks", []):
            if d in pos:
                ax.annotate(
                    "",
                    xy=(pos[d][0] - 0.55, pos[d][1]),
                    xytext=(x + 0.55, y),
                    arrowprops={"arrowstyle": "->", "color": "#c05621", "lw": 0.8, "alpha": 0.8},
                )
    for t in terms:
        first = next(c for c in plan["courses"] if c["term"] == t)
        ax.text(
            col[t] * 2.2,
            0.8,
            first.get("term_label") or f"term {t}",
            ha="center",
            fontsize=8,
            weight="bold",
        )
    ax.set_xlim(-1.2, (len(terms) - 1) * 2.2 + 1.2)
    ax.set_ylim(-(height - 1) * 0.9 - 0.7, 1.3)
    ax.axis("off")
    prog = result.get("request", {}).get("program") or "plan"
    ax.set_title(
        f"{prog}: plan {rank} (blue: counts for a requirement; arrows: prerequisites)", fontsize=9
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
