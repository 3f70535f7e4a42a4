"""Report plots (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def confusion_png(cm: dict[str, Any], path: Path, title: str = "Action type confusion") -> Path:
    """Heatmap of counts, rows = target type, cols = predicted type; each cell annotated."""
    import numpy as np

    plt = _pyplot()
    counts = np.asarray(cm["counts"], dtype=float)
    rows, cols = cm["rows"], cm["cols"]
    fig, ax = plt.subplots(figsize=(1.0 + 0.8 * len(cols), 1.0 + 0.7 * len(rows)))
    row_tot = counts.sum(axis=1, keepdims=True)
    share = np.divide(counts, row_tot, out=np.zeros_like(counts), where=row_tot > 0)
    ax.imshow(share, cmap="Blues", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(cols)), cols, rotation=45, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel("predicted type")
    ax.set_ylabel("target type (post-guard)")
    ax.set_title(title)
    for i in range(len(rows)):
        for j in range(len(cols)):
            if counts[i, j]:
                color = "white" if share[i, j] > 0.6 else "black"
                ax.text(j, i, f"{int(counts[i, j])}", ha="center", va="center", color=color)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def paired_bars_png(
    tasks: list[str], cand: list[float], ref: list[float], labels: tuple[str, str], path: Path
) -> Path:
    """Per-task success rates of two runs side by side."""
    import numpy as np

    plt = _pyplot()
    x = np.arange(len(tasks))
    fig, ax = plt.subplots(figsize=(max(5.0, 0.6 * len(tasks) + 2), 3.6))
    ax.bar(x - 0.2, cand, 0.4, label=labels[0])
    ax.bar(x + 0.2, ref, 0.4, label=labels[1])
    ax.set_xticks(x, tasks, rotation=45, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("success rate (all contracts)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
