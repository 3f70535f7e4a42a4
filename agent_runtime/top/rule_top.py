"""Deterministic rule top: WebRider "Hierarchical Controller", Eq. 2, Appendix H Table 48.

It keeps the intent contract and an evidence ledger, decomposes the goal into a queue of
compact commands, and each step re-derives the next command from the observation (so a
failed step is retried, a done one skipped). Its gate uses Table 48's verifier vocabulary:
BLOCK on an external-access signal or a material blocker, ALLOW (answer) once every
evidence obligation is covered on a non-environment task, and stop when the queue is
exhausted (the environment, when there is one, scores the episode).
"""

from __future__ import annotations

import re

from agent_runtime.grounding import ground, role_weight, text_score
from agent_runtime.top.miniwob_commands import parse_utterance
from agent_runtime.top.miniwob_plan import SKIP, Plan, PlanStep
from contracts.command import Command, Target, click, parse_command
from contracts.history import RecentHistory
from contracts.intent import IntentContract
from contracts.observation import Observation
from contracts.secrets import MASK, is_secret_ref
from contracts.top_state import EvidenceItem, TopState

MAX_TRIES_PER_STEP = 3
MAX_REVEALS = 12
_VISIBLE = 0.95  # text score that counts as "the target is on screen"
_WORD = re.compile(r"[a-z0-9]{3,}")


def generic_plan(goal: str) -> Plan:
    """Split a free-text goal into commands: quoted grammar commands, else clauses to click."""
    clauses = [c.strip(" .") for c in re.split(r"\bthen\b|;|\n", goal) if c.strip(" .")]
    steps = []
    for c in clauses:
        cmd = parse_command(c) or Command("click", Target(text=c))
        steps.append(PlanStep(cmd))
    return Plan("generic", steps)


def _obligation_covered(text: str, obs: Observation) -> str | None:
    """Excerpt of the page that covers an obligation (all its content words shown), or None."""
    page = obs.page_text.casefold()
    words = set(_WORD.findall(text.casefold()))
    if not words or not all(w in page for w in words):
        return None
    first = min(page.find(w) for w in words)
    return obs.page_text[max(0, first - 40) : first + 160]


class RuleTop:
    """The scripted teacher's top layer (with `HeuristicMiddle` it is the teacher)."""

    name = "rule"

    def __init__(self) -> None:
        self.contract: IntentContract | None = None
        self.goal = ""
        self.plan = Plan("unsupported")
        self.ledger: list[EvidenceItem] = []
        self.env_done = False
        self._cursor = 0
        self._t = 0
        self._pending: tuple[int, int] | None = None  # (plan step index, last step_index seen)
        self._tries: dict[int, int] = {}
        self._revealed: list[str] = []
        self._last_was_reveal = False

    # -- protocol ------------------------------------------------------------------------

    def start(self, contract: IntentContract, goal: str) -> None:
        self.contract = contract
        self.goal = goal
        is_env = contract.env.kind == "miniwob"
        self.plan = parse_utterance(goal) if is_env else generic_plan(goal)
        self.ledger = []
        self.env_done = False
        self._cursor = 0
        self._t = 0
        self._pending = None
        self._tries = {}
        self._revealed = []
        self._last_was_reveal = False

    def note_env_status(self, done: bool) -> None:
        """The environment's done flag (MiniWoB's WOB_DONE_GLOBAL), read by the episode loop."""
        self.env_done = done

    def step(self, observation: Observation, history: RecentHistory) -> TopState:
        self._t += 1
        self._update_ledger(observation)
        base = self._base_state()
        if observation.access_signal is not None:
            return base.model_copy(
                update={
                    "decision": "block",
                    "intention": "External access interruption; never bypassed.",
                    "blockers": [f"external_access:{observation.access_signal.value}"],
                }
            )
        hit = self._material_blocker(observation)
        if hit:
            return base.model_copy(
                update={
                    "decision": "block",
                    "intention": f"Material blocker shown: {hit}",
                    "blockers": [hit],
                }
            )
        if self.env_done:
            return base.model_copy(
                update={"decision": "stop", "intention": "The environment reports done."}
            )
        if not self._is_env():
            missing = self._missing_evidence()
            if self.contract is not None and self.contract.evidence_obligations and not missing:
                return base.model_copy(
                    update={
                        "decision": "answer",
                        "intention": "Every evidence obligation is covered.",
                        "missing_evidence": [],
                        "answer": " | ".join(e.excerpt for e in self.ledger),
                    }
                )
        if not self.plan.supported:
            return base.model_copy(
                update={
                    "decision": "stop",
                    "intention": "No command template covers this goal.",
                    "blockers": ["unsupported_goal"],
                }
            )
        self._absorb_last(history)
        for itr in self.plan.interrupts:
            if itr.when(observation):
                return self._browse(base, itr.command, "Dismiss an interruption first.")
        return self._next(base, observation, history)

    # -- internals -----------------------------------------------------------------------

    def _is_env(self) -> bool:
        return self.contract is not None and self.contract.env.kind == "miniwob"

    def _base_state(self) -> TopState:
        c = self.contract
        return TopState(
            intention=self.goal,
            active_constraints=[h.text for h in c.hard_constraints] if c else [],
            missing_evidence=self._missing_evidence(),
            ledger=list(self.ledger),
        )

    def _missing_evidence(self) -> list[str]:
        if self.contract is None:
            return []
        covered = {e.obligation_id for e in self.ledger}
        return [o.id for o in self.contract.evidence_obligations if o.id not in covered]

    def _material_blocker(self, obs: Observation) -> str | None:
        if self.contract is None:
            return None
        page = obs.page_text.casefold()
        return next((b for b in self.contract.material_blockers if b.casefold() in page), None)

    def _update_ledger(self, obs: Observation) -> None:
        if self.contract is None or self._is_env():
            return  # a MiniWoB page's own reward is its evidence; nothing to collect
        covered = {e.obligation_id for e in self.ledger}
        for o in self.contract.evidence_obligations:
            if o.id in covered:
                continue
            excerpt = _obligation_covered(o.text, obs)
            if excerpt is not None:
                self.ledger.append(
                    EvidenceItem(
                        obligation_id=o.id, step_index=self._t - 1, url=obs.url, excerpt=excerpt
                    )
                )

    def _absorb_last(self, history: RecentHistory) -> None:
        """Mark the pending `once` step done if a targeted action for it ran without failing."""
        if self._pending is None:
            return
        idx, seen = self._pending
        acts = history.actions
        if not acts or acts[-1].step_index == seen:
            return  # nothing new executed (e.g. the guards rejected it): re-derive and retry
        last = acts[-1]
        step = self.plan.steps[idx]
        # A planned `wait` is done when a wait ran; anything else needs a click or a type.
        planned_wait = isinstance(step.command, Command) and step.command.verb == "wait"
        want = ("wait",) if planned_wait else ("click", "type")
        ran = last.ok and last.action_type in want
        if ran and idx == self._cursor and step.kind == "once":
            self._cursor += 1
        self._pending = None

    def _step_satisfied(self, step: PlanStep, cmd: Command, obs: Observation) -> bool:
        if step.kind != "state":
            return False
        g = ground(cmd, obs)
        el = g.element
        if el is None or g.score < 0.5:
            return False
        if cmd.verb == "check":
            return el.checked is True
        if cmd.verb == "uncheck":
            return el.checked is False
        if cmd.verb in ("type", "select"):
            if el.role in ("checkbox", "radio"):
                return el.checked is True
            if el.value == MASK and is_secret_ref(cmd.payload):
                return True  # a secret field shows only that it is filled (contracts/secrets.py)
            return (el.value or "") == (cmd.payload or "")
        return False

    def _next(self, base: TopState, obs: Observation, history: RecentHistory) -> TopState:
        steps = self.plan.steps
        while self._cursor < len(steps):
            idx = self._cursor
            step = steps[idx]
            cmd = step.resolve(obs)
            if cmd is SKIP:
                self._cursor += 1
                continue
            if cmd is not None and self._step_satisfied(step, cmd, obs):
                self._cursor += 1
                continue
            self._tries[idx] = self._tries.get(idx, 0) + 1
            if self._tries[idx] > MAX_TRIES_PER_STEP + (MAX_REVEALS if step.reveal else 0):
                return base.model_copy(
                    update={
                        "decision": "stop",
                        "intention": f"Command kept failing: {cmd.render() if cmd else '-'}",
                        "blockers": ["repeated_failure"],
                    }
                )
            if cmd is None:
                return self._browse(base, Command("wait"), "Wait for the page to show the value.")
            if not self._visible(cmd, obs):
                if step.reveal is not None:
                    if self._last_was_reveal:
                        # Sections and menus animate open; look again before moving on.
                        self._last_was_reveal = False
                        return self._browse(base, Command("wait"), "Let the revealed part render.")
                    reveal = self._reveal(step, obs)
                    if reveal is not None:
                        self._pending = None  # a reveal click never completes the step itself
                        self._last_was_reveal = True
                        return self._browse(base, reveal, f"Reveal the target of: {cmd.render()}")
                # Not on screen and nothing to open: observe again rather than let the
                # middle act on a guess (Table 48 recovery: STALE).
                return self._browse(
                    base, Command("wait"), f"Wait for the target of: {cmd.render()}"
                )
            self._last_was_reveal = False
            self._pending = (idx, history.actions[-1].step_index if history.actions else -1)
            return self._browse(base, cmd, f"Step {idx + 1}/{len(steps)} of the plan.")
        return base.model_copy(
            update={"decision": "stop", "intention": "Every planned command has been carried out."}
        )

    def _visible(self, cmd: Command, obs: Observation) -> bool:
        """Is a click target with a text on screen (exact text, any fitting role)?"""
        t = cmd.target
        if cmd.verb != "click" or t is None or t.text is None:
            return True  # fields, role-only and state steps are checked by grounding
        return any(
            role_weight(el, t.role, cmd.verb) > 0 and text_score(t.text, el.text) >= _VISIBLE
            for el in obs.labels
        )

    def _reveal(self, step: PlanStep, obs: Observation) -> Command | None:
        assert step.reveal is not None
        cands = [" ".join(el.text.split()) for el in step.reveal.candidates(obs)]
        cands = [c for c in cands if c]
        if cands and all(c in self._revealed for c in cands):
            # Every part tried once: cycle again (an animation may have hidden the target).
            self._revealed = []
        for key in cands:
            if key not in self._revealed:
                self._revealed.append(key)
                return click(key, step.reveal.role)
        return None

    def _browse(self, base: TopState, cmd: Command, why: str) -> TopState:
        return base.model_copy(
            update={
                "decision": "browse",
                "command": cmd.render(),
                "intention": f"{why} Goal: {self.goal}",
                "expected_observation": "The page reflects the command.",
            }
        )
