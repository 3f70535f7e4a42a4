"""Prerequisite prose to the clause AST: KnowPlan, "Deterministic-first parsing"."""

from catalogbrowse.prereq.parser import ParseResult, Span, parse_prereq

__all__ = ["ParseResult", "Span", "parse_prereq"]
