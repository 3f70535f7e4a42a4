"""Model-driven task execution: OdoBot Section IV (target, current vertex, paths, cursor replay).

The task text gives the target vertex (the matcher's best trajectory, or with `pick_k` a model's
pick among its top k, as in the paper); the browser's location gives the current one; beam
search gives candidate paths and overlap picks one. A cursor walks the path: user-event
vertices become actions (Table III), application-event vertices are waited for in the live
trajectory. An application event that maps elsewhere re-locates the cursor: a new path is
planned from the vertex it maps to. Model calls happen only where a free parameter is set.
"""

from __future__ import annotations

import time

import networkx as nx
from pydantic import BaseModel, ConfigDict, Field

from odobot.act import ActError, perform
from odobot.capture import Recorder
from odobot.events import USER_KINDS, TrajEvent
from odobot.graph import location_vertex, vertex_of
from odobot.normalize import normalize_path
from odobot.paths import Distances, beam_search, choose_path
from odobot.prompts import PromptCall, PromptLog, trajectory_prompt
from odobot.target import TargetFinder, TargetMatch, TargetNotFound


class RunResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task_id: str
    reached: bool
    reason: str
    trajectory: str = ""
    similarity: float = 0.0
    path: list[str] = Field(default_factory=list)
    cursor_relocations: int = 0
    element_relocations: int = 0
    actions: int = 0
    prompts: list[PromptCall] = Field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0


class _Fail(Exception):
    pass


class OdoBot:
    def __init__(
        self,
        g: nx.DiGraph,
        finder: TargetFinder,
        log: PromptLog,
        recorder: Recorder,
        *,
        event_timeout_s: float = 4.0,
        max_relocations: int = 3,
        pick_k: int | None = None,
    ) -> None:
        self.g, self.finder, self.log, self.rec = g, finder, log, recorder
        self.dist = Distances(g)
        self.event_timeout_s = event_timeout_s
        self.max_relocations = max_relocations
        self.pick_k = pick_k

    def _target(self, task: str) -> TargetMatch:
        """The similar high-level task: the matcher's best, or the answerer's pick of its top k."""
        if self.pick_k is None:
            return self.finder.find(task)
        ids = self.finder.candidates(task, self.pick_k)
        descriptions = [self.g.graph["descriptions"][t] for t in ids]
        prompt = trajectory_prompt(task, descriptions, ids)
        answer = self.log.ask(prompt)
        if answer not in prompt.choices:
            raise TargetNotFound(f"trajectory prompt answered {answer!r}, not a candidate")
        return self.finder.find(task, ids[prompt.choices.index(answer)])

    def _plan(self, source: str, target: str, similar: set[str]) -> list[str]:
        paths = beam_search(self.g, source, target, dist=self.dist, prefer=similar)
        path = choose_path(paths, similar)
        if path is None:
            raise _Fail(f"no path in the model from {source} to target {target}")
        return path

    def run(self, task_id: str, task: str, start_url: str) -> RunResult:
        t0 = time.perf_counter()
        self.log.calls = []
        res = RunResult(task_id=task_id, reached=False, reason="")
        try:
            match = self._target(task)
        except TargetNotFound as e:
            res.reason = f"target vertex absent: {e}"
            return self._finish(res, t0)
        res.trajectory, res.similarity = match.trajectory, match.similarity
        ev_vertex = self.g.graph["event_vertex"]
        similar = {
            ev_vertex[e] for e in self.g.graph["trajectories"][match.trajectory] if e in ev_vertex
        }
        self.rec.begin(task_id)
        self.rec.goto(start_url)
        try:
            self._walk(res, task, match.target, similar)
            res.reached, res.reason = True, f"reached target {match.target}"
        except (_Fail, ActError) as e:
            res.reason = str(e)
        return self._finish(res, t0)

    def _finish(self, res: RunResult, t0: float) -> RunResult:
        res.prompts = list(self.log.calls)
        res.prompt_tokens = self.log.prompt_tokens
        res.completion_tokens = self.log.completion_tokens
        res.wall_s = round(time.perf_counter() - t0, 2)
        return res

    def _walk(self, res: RunResult, task: str, target: str, similar: set[str]) -> None:
        here = normalize_path(self.rec.page.url, self.rec.rules)
        source = location_vertex(self.g, here)
        if source is None:
            raise _Fail(f"current page {here} is no location vertex of the model")
        path = self._plan(source, target, similar)
        res.path = list(path)
        seen = len(self.rec.events)
        i = 1
        while i < len(path):
            vid = path[i]
            data = self.g.nodes[vid]
            if data["kind"] in USER_KINDS:
                moved = perform(self.rec, self.log, vid, data, task)
                res.actions += 1
                res.element_relocations += int(moved)
                i += 1
                continue
            if data["kind"] == "dom_effect":
                i += 1  # stochastic (latency, order): never waited for
                continue
            ev, seen = self._next_app_event(seen)
            if ev is None:
                raise _Fail(f"expected {data['kind']} {data['fixed']}; no event arrived")
            got = vertex_of(self.g, ev)
            if got in (vid, target):
                if got == target:
                    self.rec.settle()  # let the call complete and the page move on
                    return
                i += 1
                continue
            if ev.kind == "location":
                if res.cursor_relocations >= self.max_relocations:
                    raise _Fail(f"lost after {res.cursor_relocations} re-locations at {ev.url}")
                res.cursor_relocations += 1
                if got is None:
                    raise _Fail(f"unexpected page {ev.base_path} is not in the model")
                path = self._plan(got, target, similar)
                res.path = list(path)
                i = 1
            # an unexpected API call is noted by not advancing; the next event decides

    def _next_app_event(self, seen: int) -> tuple[TrajEvent | None, int]:
        deadline = time.time() + self.event_timeout_s
        while True:
            evs = self.rec.events
            while seen < len(evs):
                ev = evs[seen]
                seen += 1
                if ev.kind in ("api", "location"):
                    return ev, seen
            if time.time() > deadline:
                return None, seen
            self.rec.settle(max_s=0.5)
