"""Execution planning (OdoBot IV): Eq. 1 distance, beam search, overlap, absent targets."""

from __future__ import annotations

import math
from typing import Any, cast

from odobot.events import Trajectory, TrajEvent
from odobot.graph import vertex_of
from odobot.model import build_model
from odobot.paths import Distances, beam_search, choose_path
from odobot.prompts import PromptLog
from odobot.runner import OdoBot
from odobot.target import TargetFinder
from tests.odobot.fixtures import figure1, login_then


def _api(path: str) -> TrajEvent:
    return TrajEvent(id="x#7", kind="api", t=7.0, method="POST", base_path=path)


def _model() -> tuple[Any, list[Trajectory]]:
    trajs = [*figure1(), login_then("c0ffee00", "carol", _api("/api/v1/courses/*/discussions"))]
    g, _, _ = build_model(trajs)
    return g, trajs


def test_distance_is_the_average_index_gap_and_infinite_without_a_shared_trajectory() -> None:
    g, (t1, t2, _t3) = _model()
    d = Distances(g)
    user, card = vertex_of(g, t1.events[0]), vertex_of(g, t1.events[7])
    groups = vertex_of(g, t2.events[7])
    assert d(user, card) == 7.0  # index 0 -> index 7 in the one trajectory holding both
    assert math.isinf(d(card, groups))  # no trajectory holds both clicks


def test_beam_search_reaches_the_target_and_overlap_picks_the_similar_path() -> None:
    g, (t1, _, t3) = _model()
    source = vertex_of(g, t1.events[0])
    target = vertex_of(g, t3.events[7])
    paths = beam_search(g, source, target)
    assert paths and all(p[0] == source and p[-1] == target for p in paths)
    similar = {vertex_of(g, e) or "" for e in t3.events}
    assert choose_path(paths, similar) == paths[0]
    # From the Groups click nothing leads on: no path, no wandering.
    assert beam_search(g, vertex_of(g, _groups(g)), target) == []


def _groups(g: Any) -> TrajEvent:
    return figure1()[1].events[7]


class _NoAnswers:
    name = "none"

    def answer(self, *a: object) -> str:
        raise AssertionError("no prompt may be sent for a task without a target")


class _Count:
    name = "chars"

    def prompt(self, messages: list[dict[str, Any]]) -> int:
        return sum(len(m["content"]) for m in messages)

    def completion(self, text: str) -> int:
        return len(text)


def test_a_task_whose_target_vertex_is_absent_fails_with_a_clear_reason() -> None:
    g, _ = _model()
    finder = TargetFinder(g, "lexical")
    # The browser is never touched: the run stops before any navigation.
    bot = OdoBot(g, finder, PromptLog(_NoAnswers(), _Count()), cast(Any, None))
    res = bot.run("t1", "Change my language to Deutsch.", "http://127.0.0.1:1/login")
    assert not res.reached and res.actions == 0 and res.prompt_tokens == 0
    assert res.reason.startswith("target vertex absent: no trajectory in the model matches")
    assert "demonstrate this task first" in res.reason
    # A task that does match a trajectory gets its side-effect vertex as the target.
    hit = finder.find('Create a discussion titled "Hi" in the course "Biology 101".')
    assert hit.trajectory == "c0ffee00" and g.nodes[hit.target]["kind"] == "api"


def test_equal_distances_are_broken_toward_the_demonstrated_step() -> None:
    # Two demonstrations fill the same form and differ only in which checkbox they tick before
    # the same Save: both checkboxes are two steps from the call, so Eq. 1 cannot tell them apart.
    import networkx as nx

    g = nx.DiGraph()
    steps = {"form": 0, "editor": 1, "save": 3, "call": 4}
    for v, i in steps.items():
        g.add_node(v, instances=[f"pinned#{i}", f"threaded#{i}"])
    g.add_node("tick_pinned", instances=["pinned#2"])
    g.add_node("tick_threaded", instances=["threaded#2"])
    g.add_edges_from([("form", "editor"), ("editor", "save"), ("save", "call")])
    for tick in ("tick_pinned", "tick_threaded"):
        g.add_edges_from([("editor", tick), (tick, "save")])
    for demo in ("pinned", "threaded"):
        similar = {"form", "editor", f"tick_{demo}", "save", "call"}
        paths = beam_search(g, "form", "call", prefer=similar)
        assert choose_path(paths, similar) == ["form", "editor", f"tick_{demo}", "save", "call"]
