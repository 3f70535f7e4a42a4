"""The smallest equal form of a clause AST: KnowPlan, "Metrics" (normalized prerequisite ASTs).

A small clause model repeats itself: on "a C or better in COMM 104" the served 135M model wrote
`any_of(COMM 104, any_of(COMM 104, all_of(COMM 104, ...)))`, 15 nodes for one course. The
answer passes the validator (every atom is in the span) and means COMM 104, but the planner and
the viewer would carry the whole tree. `simplify` returns the same boolean function of the same
atoms with these rewrites, bottom up:

- a group nested in a group of its own kind is merged into it; a one-item group is its item;
- a child repeated in an `all_of` or `any_of` is kept once (not in a `choose_n`: "two of A, A,
  B" counts A twice);
- absorption: `any_of(X, all_of(X, Y))` is X, `all_of(X, any_of(X, Y))` is X;
- `choose_n` of 1 is an `any_of`, of all its items an `all_of`.
"""

from __future__ import annotations

from typing import Any

from planner.clause_ast import AllOfNode, AnyOfNode, ChooseNNode, Clause

_GROUPS = (AllOfNode, AnyOfNode, ChooseNNode)


def _key(node: Any) -> str:
    return node.model_dump_json()


def simplify(node: Any) -> Any:
    """`node` (a clause node or None) in its smallest equal form under the rules above."""
    if not isinstance(node, _GROUPS):
        return node
    items = [simplify(i) for i in node.items]
    if isinstance(node, ChooseNNode):
        if node.n == len(items):
            return _junction(AllOfNode, items)
        if node.n == 1:
            return _junction(AnyOfNode, items)
        return ChooseNNode(n=node.n, items=items)
    return _junction(type(node), items)


def _junction(kind: type[AllOfNode] | type[AnyOfNode], items: list[Any]) -> Any:
    flat: dict[str, Any] = {}
    for item in items:
        for x in item.items if isinstance(item, kind) else [item]:
            flat.setdefault(_key(x), x)
    dual = AnyOfNode if kind is AllOfNode else AllOfNode
    # A dual child that holds a sibling is implied by (any_of) or implies (all_of) that sibling,
    # so the sibling alone decides; a chain of such children ends at one that is kept.
    kept = [
        x
        for x in flat.values()
        if not (isinstance(x, dual) and any(_key(y) in flat for y in x.items))
    ]
    return kept[0] if len(kept) == 1 else kind(items=kept)


def simplify_clause(clause: Clause) -> Clause:
    """The clause with its prerequisite simplified (recommendations untouched)."""
    return clause.model_copy(update={"prerequisite": simplify(clause.prerequisite)})
