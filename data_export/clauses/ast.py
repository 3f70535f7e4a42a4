"""Clause AST for prerequisite spans: re-exported from planner.clause_ast, which owns it."""

from planner.clause_ast import *  # noqa: F403
from planner.clause_ast import (  # noqa: F401
    NODE_ADAPTER,
    AllOfNode,
    AnyOfNode,
    ChooseNNode,
    Clause,
    ConcurrentNode,
    ConsentNode,
    CourseNode,
    EquivalentNode,
    Node,
    PlacementNode,
    StandingNode,
    UnsupportedNode,
    clause_course_ids,
    clause_json_schema,
    course_ids,
)
