"""Clause-to-AST export: KnowPlan, "Deterministic-first parsing" (prose to clause AST)."""
