"""OdoBot's students' SFT datasets from the training runs (OdoBot Section VI; WebRider App. E).

The training runs (evals/odobot/collect.py) keep, per instance and agent, what was sent to a
model and the answer the demonstrator's knowledge gives. Here they become chat records in TRL's
conversational format: for the OdoBot student its small prompts (trajectory, option, value,
check), for the baseline student every full-observation step with its post-guard Action AST.
Before anything is written, the records are checked against the held-out instances
(`leaks.py`): a dataset holding a held-out task or value is refused.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from common.outputs import atomic_dir, refuse_existing, write_json
from data_export import EXPORTER_VERSION
from data_export.dataset import save_splits
from data_export.odobot.leaks import leaks
from envs.lms.tasks import TaskInstance
from odobot.prompts import ODO_SYSTEM

Student = Literal["odobot", "baseline"]
MANIFEST = "manifest.json"


class HeldOutLeak(ValueError):
    """Training records hold a held-out task or value: nothing was written."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text") or "" for p in content if p.get("type") == "text")


def _messages(student: Student, rec: dict[str, Any]) -> list[dict[str, str]]:
    if student == "odobot":
        prompt = [
            {"role": "system", "content": ODO_SYSTEM},
            {"role": "user", "content": rec["user"]},
        ]
    else:
        prompt = [{"role": m["role"], "content": _text(m["content"])} for m in rec["messages"]]
    return [*prompt, {"role": "assistant", "content": rec["completion"]}]


def records(student: Student, runs: Path) -> Iterator[dict[str, Any]]:
    """One SFT record per kept prompt of every confirmed run under `runs` (RUNS/<task>.json)."""
    for path in sorted(runs.glob("*.json")):
        doc = json.loads(path.read_text())
        for rec in doc["records"]:
            yield {
                "messages": _messages(student, rec),
                "base_task_id": doc["template"],
                "source": doc["task_id"],
                "kind": rec.get("kind") or rec.get("action", ""),
            }


def features():
    from datasets import Features, List, Value

    msg = {"role": Value("string"), "content": Value("string")}
    return Features(
        {
            "messages": List(msg),
            "base_task_id": Value("string"),
            "source": Value("string"),
            "kind": Value("string"),
        }
    )


def export_student(
    student: Student,
    runs: Path,
    out: Path,
    heldout: list[TaskInstance],
    *,
    overwrite: bool = False,
) -> dict[str, Any]:
    """The student's DatasetDict (one `train` split) and its manifest; refuses a held-out leak."""
    refuse_existing(out, overwrite, "--overwrite")
    rows = list(records(student, runs))
    if not rows:
        raise ValueError(f"{runs}: no training records (run the training runs first)")
    found = leaks(rows, heldout)
    if found:
        raise HeldOutLeak(
            f"{runs}: {len(found)} held-out task(s) or value(s) in the training records, "
            f"first: {found[0]}; nothing written"
        )
    t0 = time.perf_counter()
    with atomic_dir(out, overwrite, "--overwrite") as tmp:
        sizes = save_splits(
            {"train": lambda: iter(rows)}, features(), tmp / "dataset", tmp / ".scratch"
        )
        manifest = {
            "exporter_version": EXPORTER_VERSION,
            "student": student,
            "source": str(runs),
            "splits": sizes,
            "by_kind": dict(sorted(Counter(r["kind"] for r in rows).items())),
            "templates": len({r["base_task_id"] for r in rows}),
            "runs": len({r["source"] for r in rows}),
            "heldout_checked": len(heldout),
            "heldout_leaks": 0,
            "seconds": round(time.perf_counter() - t0, 2),
        }
        write_json(tmp / MANIFEST, manifest)
    return manifest
