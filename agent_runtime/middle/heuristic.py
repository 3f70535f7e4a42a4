"""Heuristic middle a_t = f_mid(s_top, o_t, h_t): WebRider Eq. 3, Appendix H Tables 45-46.

Grounds the top command on the visible labels and emits raw Action AST JSON text plus a
confidence (the match score). It never finalizes: with nothing to ground it scrolls,
as Table 46 allows when the target is absent. The guards still decide what executes.
"""

from __future__ import annotations

from agent_runtime.grounding import ground
from agent_runtime.middle.base import MiddleInput, MiddleOutput
from contracts.actions import (
    ActionAST,
    BackAction,
    ClickAction,
    MapsAction,
    ScrollAction,
    SearchAction,
    TypeAction,
    WaitAction,
)
from contracts.command import Command, Target, parse_command

# In-page commands fall back to a short wait: on a single-page task the usual reason a
# label vanished is a re-render, and waiting is safer than scrolling the target away.
_STALE_WAIT = WaitAction(reason="stale_state", seconds=0.5)


def _ast(
    action: ClickAction
    | TypeAction
    | ScrollAction
    | WaitAction
    | SearchAction
    | MapsAction
    | BackAction,
    fallback: ScrollAction | WaitAction | SearchAction | BackAction = _STALE_WAIT,
) -> str:
    return ActionAST(action=action, fallback=fallback).to_json()


class HeuristicMiddle:
    """Deterministic text-match grounding; the scripted teacher's middle."""

    name = "heuristic"

    def propose(self, inp: MiddleInput) -> MiddleOutput:
        text = inp.top.command or inp.top.intention
        cmd = parse_command(text)
        if cmd is None:
            # Free text outside the grammar (e.g. from an LLM top): treat it as a click target.
            cmd = Command("click", Target(text=text.strip().strip('"') or None))
        raw, conf = self._realize(cmd, inp)
        return MiddleOutput(raw=raw, confidence=round(conf, 4))

    def _realize(self, cmd: Command, inp: MiddleInput) -> tuple[str, float]:
        obs = inp.observation
        if cmd.verb == "scroll":
            return _ast(ScrollAction(direction=cmd.direction or "down"), _STALE_WAIT), 1.0
        if cmd.verb == "search":
            # Figure 9: a search falls back with go_back.
            return _ast(SearchAction(query=cmd.payload or ""), BackAction(reason="history")), 1.0
        if cmd.verb == "maps":
            query = cmd.payload or ""
            if not inp.geographic:
                return _ast(SearchAction(query=query), BackAction(reason="history")), 1.0
            return _ast(MapsAction(query=query, location=cmd.near), SearchAction(query=query)), 1.0
        if cmd.verb == "back":
            return _ast(
                BackAction(reason="history"), WaitAction(reason="dead_end", seconds=0.5)
            ), 1.0
        if cmd.verb == "wait":
            return _ast(
                WaitAction(reason="loading", seconds=0.5), ScrollAction(direction="down")
            ), 1.0
        g = ground(cmd, obs)
        el = g.element
        if el is None:
            # Table 46, target absent: scroll to reveal more of the page, waiting if not.
            return _ast(ScrollAction(direction="down"), _STALE_WAIT), 0.0
        if cmd.verb == "type":
            return _ast(TypeAction(target=el.label, text=cmd.payload or " ")), g.score
        if cmd.verb == "select":
            if el.role in ("combobox", "listbox") or el.tag == "select":
                return _ast(TypeAction(target=el.label, text=cmd.payload or " ")), g.score
            return _ast(ClickAction(target=el.label)), g.score
        if cmd.verb in ("check", "uncheck"):
            want = cmd.verb == "check"
            if el.checked is want:
                # Already in the wanted state: clicking would undo it, so only observe.
                return _ast(WaitAction(reason="stale_state", seconds=0.2)), g.score
            return _ast(ClickAction(target=el.label)), g.score
        return _ast(ClickAction(target=el.label)), g.score
