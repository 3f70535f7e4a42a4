"""The students' training runs: both agents with the oracle on the training worlds (OdoBot
Section VI's demonstrations, one per template and training world).

Every training instance (training seeds, training phrasings, never a held-out one) runs with
OdoBot answered by the oracle and with the full-observation loop driven by the scripted
demonstrator. What each sent a model and the answer the demonstrator's knowledge gives are kept
as the students' records, only from runs whose side effect the LMS database confirms:
OdoBot's small prompts for the OdoBot student, every step's full observation for the baseline
student. One JSON file per instance and agent; a rerun skips finished ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tqdm import tqdm

from envs.lms import TaskInstance
from evals.odobot.study import AGENTS, Arms
from odobot.pipeline import OdoConfig, lms_browser, training_instances


def run_doc(
    inst: TaskInstance, world_seed: int, success: bool, reason: str, records: list[dict[str, Any]]
) -> dict[str, Any]:
    """One training run's file: the instance, its outcome and (if confirmed) its records."""
    return {
        "task_id": inst.task_id,
        "template": inst.template_id,
        "world_seed": world_seed,
        "phrasing": inst.phrasing,
        "text": inst.text,
        "success": success,
        "reason": reason,
        # A run the database does not confirm teaches nothing reliable.
        "records": records if success else [],
    }


def collect(
    out: Path, cfg: OdoConfig, counter: Any, folder: Path, progress: bool = True
) -> dict[str, Any]:
    """Run every training instance on both agents (OUT holds the model); FOLDER/<agent>/<task>.json
    per run; returns counts per agent."""
    arms = Arms(out, cfg, counter, students=None)
    counts: dict[str, dict[str, int]] = {a: {"runs": 0, "ok": 0, "records": 0} for a in AGENTS}
    for world, insts in training_instances(cfg):
        todo = [
            (agent, inst)
            for inst in insts
            for agent in AGENTS
            if not (folder / agent / f"{inst.task_id}.json").is_file()
        ]
        if todo:
            with lms_browser(world) as (env, session, rec):
                rec.take_snapshots = False
                bar = tqdm(todo, desc=f"training runs, world {world.seed}", disable=not progress)
                for agent, inst in bar:
                    records: list[dict[str, Any]] = []
                    row = arms.run(agent, "oracle", inst, env, session, rec, records)
                    reason = row.get("reason") or row.get("error", "")
                    doc = run_doc(inst, world.seed, row["success"], reason, records)
                    path = folder / agent / f"{inst.task_id}.json"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(json.dumps(doc, indent=1) + "\n")
        for agent in AGENTS:
            for inst in insts:
                doc = json.loads((folder / agent / f"{inst.task_id}.json").read_text())
                counts[agent]["runs"] += 1
                counts[agent]["ok"] += int(doc["success"])
                counts[agent]["records"] += len(doc["records"])
    return counts
