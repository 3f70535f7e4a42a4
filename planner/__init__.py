"""DegreeMap planner (KnowPlan): three catalog documents -> hypergraph -> CP-SAT ladder -> plans.

documents (schemas, loader) · hypergraph (typed graph, issues) · model (CP-SAT encoding) ·
solve (ladder, top-k) · explain (infeasibility) · utility (Eq. 3) · profile (requests) ·
clarify (questions) · verify (independent checker) · synth, greedy, bench (benchmark).
Imports nothing from other Pathwise packages."""
