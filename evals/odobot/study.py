"""The held-out study, four arms: OdoBot Section VI (OdoBot vs a full-observation agent).

Each held-out instance runs with OdoBot (its graph model and small prompts) and with the
full-observation baseline, each answered either by a trained student behind an endpoint or by
the oracle upper bound, and each checked in the LMS database after its run. The session starts
signed in (the harness signs in; no credential reaches a prompt). One JSON file per task and
arm, so a rerun skips finished work.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from tqdm import tqdm

from agent_runtime.middle.endpoint import EndpointMiddle
from agent_runtime.middle.format import get_format
from envs.lms import TaskInstance
from evals.odobot.baseline import DemonstratorMiddle, run_baseline
from odobot.graph import load_graph
from odobot.oracle import OracleAnswerer
from odobot.pipeline import OdoConfig, demo_id, heldout_instances, lms_browser, signed_in
from odobot.prompts import Answerer, PromptLog
from odobot.runner import OdoBot
from odobot.student import StudentAnswerer
from odobot.target import TargetFinder
from serving.client import ChatClient

Agent = Literal["odobot", "baseline"]
AnswererKind = Literal["oracle", "student"]
AGENTS: tuple[Agent, ...] = ("odobot", "baseline")


class Endpoint(BaseModel):
    """Where a student is served: an OpenAI-compatible URL and the served model's name."""

    model_config = ConfigDict(extra="forbid")
    url: str
    model: str


class Students(BaseModel):
    """The two served students (OdoBot's small prompts; the full-observation middle)."""

    model_config = ConfigDict(extra="forbid")
    odobot: Endpoint
    baseline: Endpoint
    api_key: str | None = None
    timeout_s: float = 120.0


def arm_name(agent: Agent, answerer: AnswererKind) -> str:
    return f"{agent}-{answerer}"


class Arms:
    """Runs one instance with one agent and answerer on a signed-in session; returns its row."""

    def __init__(self, out: Path, cfg: OdoConfig, counter: Any, students: Students | None) -> None:
        self.cfg = cfg
        self.counter = counter
        self.g = load_graph(out / "model" / "graph.json")
        self.finder = TargetFinder(self.g, cfg.matcher)
        self.fmt = get_format(cfg.middle_format)
        self.students = students
        self._clients: dict[Agent, ChatClient] = {}

    def client(self, agent: Agent) -> ChatClient:
        if self.students is None:
            raise ValueError("the student arms need served students (an endpoint per student)")
        if agent not in self._clients:
            ep: Endpoint = getattr(self.students, agent)
            self._clients[agent] = ChatClient(
                ep.url, ep.model, self.students.api_key, timeout=self.students.timeout_s
            )
        return self._clients[agent]

    def close(self) -> None:
        for c in self._clients.values():
            c.close()

    def run(
        self,
        agent: Agent,
        answerer: AnswererKind,
        inst: TaskInstance,
        env: Any,
        session: Any,
        rec: Any,
        records: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        url = signed_in(env, session)
        if agent == "odobot":
            row = self._odobot(answerer, inst, url, rec, records)
        else:
            row = self._baseline(answerer, inst, url, rec, records)
        check = env.check(inst)
        row |= {"template": inst.template_id, "success": check.ok, "check": check.reason}
        return row

    def _odobot(self, answerer, inst, url, rec, records) -> dict[str, Any]:
        who: Answerer
        if answerer == "oracle":
            who = OracleAnswerer(inst.params, demo_id(inst.template_id))
        else:
            who = StudentAnswerer(self.client("odobot"))
        log = PromptLog(who, self.counter)
        bot = OdoBot(self.g, self.finder, log, rec, pick_k=self.cfg.pick_k)
        res = bot.run(inst.task_id, inst.text, url)
        if records is not None:
            records += [
                {"kind": c.kind, "user": c.user, "completion": c.completion} for c in res.prompts
            ]
        row = res.model_dump() | {"calls": len(res.prompts)}
        if isinstance(who, StudentAnswerer):
            row["request_errors"] = who.errors
        return row

    def _baseline(self, answerer, inst, url, rec, records) -> dict[str, Any]:
        if answerer == "oracle":
            middle: Any = DemonstratorMiddle(inst, self.fmt)
        else:
            middle = EndpointMiddle(
                self.client("baseline").base_url,
                self.client("baseline").model,
                vision=False,
                grounded_schema=True,
                free_text=True,
                fmt=self.fmt,
                client=self.client("baseline"),
            )
        res = run_baseline(
            rec, inst, url, middle, self.counter, self.fmt, max_steps=self.cfg.max_steps,
            records=records,
        )  # fmt: skip
        return res.model_dump() | {"calls": res.steps}


def run(
    out: Path,
    cfg: OdoConfig,
    counter: Any,
    answerers: tuple[AnswererKind, ...] = ("oracle",),
    students: Students | None = None,
    progress: bool = True,
) -> None:
    """Held-out instances on every agent with each answerer, checked in the LMS database."""
    world, insts = heldout_instances(cfg)
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    (out / "tasks" / "heldout.jsonl").write_text("".join(i.model_dump_json() + "\n" for i in insts))
    arms = Arms(out, cfg, counter, students)
    try:
        for answerer in answerers:
            for agent in AGENTS:
                folder = out / "runs" / arm_name(agent, answerer)
                folder.mkdir(parents=True, exist_ok=True)
                todo = [i for i in insts if not (folder / f"{i.task_id}.json").is_file()]
                if not todo:
                    continue
                with lms_browser(world) as (env, session, rec):
                    rec.take_snapshots = False
                    for inst in tqdm(todo, desc=arm_name(agent, answerer), disable=not progress):
                        row = arms.run(agent, answerer, inst, env, session, rec)
                        path = folder / f"{inst.task_id}.json"
                        path.write_text(json.dumps(row, indent=1) + "\n")
    finally:
        arms.close()
