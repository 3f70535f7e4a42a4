"""The demo report's pictures: teacher vs student per task, and the training loss curve."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_tasks(per_task: dict[str, dict[str, Any]], path: Path) -> None:
    import numpy as np

    plt = _pyplot()
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


def plot_losses(curves: dict[str, list[float]], path: Path) -> None:
    plt = _pyplot()
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
