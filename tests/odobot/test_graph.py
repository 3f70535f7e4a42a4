"""Graph construction (OdoBot III-B): Figure 1's shape, instances, fixed vs free parameters."""

from __future__ import annotations

import networkx as nx

from odobot.graph import build_graph, vertex_of
from tests.odobot.fixtures import figure1


def test_two_trajectories_give_figure_1_shape() -> None:
    t1, t2 = figure1()
    g = build_graph([t1, t2])
    kinds = sorted(d["kind"] for _, d in g.nodes(data=True))
    # username, password, login click, login API call, dashboard location, its DOM effects
    # (two events, one vertex), and the two different last clicks.
    assert kinds == ["api", "click", "click", "click", "dom_effect", "input", "input", "location"]
    assert g.number_of_edges() == 7
    assert nx.is_directed_acyclic_graph(g)
    fork = [v for v in g if g.out_degree(v) == 2]
    assert len(fork) == 1 and g.nodes[fork[0]]["kind"] == "dom_effect"
    # The DOM effects after a location event hang off that location vertex.
    assert g.nodes[next(g.predecessors(fork[0]))]["kind"] == "location"
    sinks = [v for v in g if g.out_degree(v) == 0]
    assert {g.nodes[v]["text"] for v in sinks} == {"Biology 101", "Groups"}


def test_instances_name_every_event_of_a_vertex() -> None:
    t1, t2 = figure1()
    g = build_graph([t1, t2])
    login = vertex_of(g, t1.events[2])
    assert login == vertex_of(g, t2.events[2])
    assert sorted(g.nodes[login]["instances"]) == ["85409a14#2", "a6aa9079#2"]
    effects = next(v for v, d in g.nodes(data=True) if d["kind"] == "dom_effect")
    assert sorted(g.nodes[effects]["instances"]) == [
        "85409a14#5", "85409a14#6", "a6aa9079#5", "a6aa9079#6"
    ]  # fmt: skip


def test_fixed_parameters_split_vertices_free_ones_do_not() -> None:
    t1, t2 = figure1()
    g = build_graph([t1, t2])
    user = vertex_of(g, t1.events[0])
    # Different usernames (a free parameter) still map to one data-entry vertex ...
    assert user == vertex_of(g, t2.events[0])
    assert sorted(g.nodes[user]["free"]["value"]) == ["alice", "bob"]
    assert set(g.nodes[user]["fixed"]) == {"base_path", "xpath"}
    # ... while a different XPath or text (fixed parameters of a click) makes a new vertex.
    moved = t1.events[2].model_copy(update={"xpath": "/html[1]/body[1]/button[1]"})
    assert vertex_of(g, moved) is None
    relabeled = t1.events[2].model_copy(update={"text": "Sign in"})
    assert vertex_of(g, relabeled) is None
    assert g.nodes[vertex_of(g, t1.events[2])]["free"] == {}


def test_inspect_draws_the_model_and_lists_vertices_with_descriptions(tmp_path) -> None:
    from odobot.draw import describe_graph, draw_graph
    from odobot.graph import load_graph, save_graph
    from odobot.model import build_model

    g, cost, stats = build_model(figure1())
    assert stats.vertices == 8 and len(cost.prompts) == len(cost.completions) > 16
    save_graph(g, tmp_path / "graph.json")
    back = load_graph(tmp_path / "graph.json")
    assert sorted(back.nodes) == sorted(g.nodes) and back.graph["trajectories"]
    png = draw_graph(back, tmp_path / "graph.png")
    assert png.read_bytes()[:4] == b"\x89PNG"
    text = describe_graph(back)
    assert 'annotation: Click "Log in" on /login/canvas.' in text
    assert "instances: 2 (" in text
