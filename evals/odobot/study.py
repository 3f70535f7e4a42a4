"""The held-out study, both arms: OdoBot Section VI (OdoBot vs a full-observation agent).

Each held-out instance runs once with OdoBot (its graph model and small prompts) and once with
the full-observation baseline, each checked in the LMS database after its run. One JSON file per
task and arm, so a rerun skips finished work.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tqdm import tqdm

from evals.odobot.baseline import run_baseline
from odobot.graph import load_graph
from odobot.oracle import OracleAnswerer
from odobot.pipeline import OdoConfig, _fresh, heldout_instances, lms_browser
from odobot.prompts import PromptLog
from odobot.runner import OdoBot
from odobot.target import TargetFinder


def run(out: Path, cfg: OdoConfig, counter: Any, progress: bool = True) -> None:
    """Held-out instances, both arms, each checked in the LMS database after its run."""

    world, insts = heldout_instances(cfg)
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    (out / "tasks" / "heldout.jsonl").write_text("".join(i.model_dump_json() + "\n" for i in insts))
    g = load_graph(out / "model" / "graph.json")
    finder = TargetFinder(g, cfg.matcher)
    for arm in ("odobot", "baseline"):
        folder = out / "runs" / arm
        folder.mkdir(parents=True, exist_ok=True)
        todo = [i for i in insts if not (folder / f"{i.task_id}.json").is_file()]
        if not todo:
            continue
        with lms_browser(world) as (env, session, rec):
            rec.take_snapshots = False
            for inst in tqdm(todo, desc=arm, disable=not progress):
                url = _fresh(env, session)
                if arm == "odobot":
                    log = PromptLog(OracleAnswerer(inst.params), counter)
                    bot = OdoBot(g, finder, log, rec)
                    row: dict[str, Any] = bot.run(inst.task_id, inst.text, url).model_dump()
                else:
                    row = run_baseline(rec, inst, url, counter).model_dump()
                check = env.check(inst)
                row |= {"template": inst.template_id, "success": check.ok, "check": check.reason}
                (folder / f"{inst.task_id}.json").write_text(json.dumps(row, indent=1) + "\n")
