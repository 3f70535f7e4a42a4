"""Table 30's design: seeded pair choice, anchors to all, coverage split, balanced sides."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from evals.audit.aggregate import hcp_counts, pair_majority, rollout_pcs, step_majority
from evals.audit.config import load_settings
from evals.audit.design import DesignError, assign, choose_pairs

CONTRACTS = [f"c{i:03d}" for i in range(120)]


def design(seed: int, pairs: int = 80, anchors: int = 20, raters: int = 6):
    rng = random.Random(seed)
    planned = choose_pairs(CONTRACTS, pairs, anchors, rng)
    return planned, assign(planned, raters, 2, rng)


def test_paper_defaults_are_the_settings_defaults() -> None:
    s = load_settings()
    assert (s.pairs, s.anchors, s.raters, s.coverage_raters) == (80, 20, 6, 2)
    with pytest.raises(ValueError, match="anchors"):
        load_settings(anchors=90)


def test_anchors_go_to_everyone_and_coverage_to_two_balanced_raters() -> None:
    planned, assignments = design(seed=1)
    kinds = Counter(p.kind for p in planned)
    assert kinds == {"anchor": 20, "coverage": 60}
    assert len({p.contract_id for p in planned}) == 80
    raters_of = Counter(a.pair_id for a in assignments)
    for p in planned:
        assert raters_of[p.pair_id] == (6 if p.kind == "anchor" else 2)
    load = Counter(a.slot for a in assignments)
    assert max(load.values()) - min(load.values()) <= 1  # 20 anchors + 20 coverage each
    for slot in range(1, 7):
        mine = sorted(a.position for a in assignments if a.slot == slot)
        assert mine == list(range(1, len(mine) + 1))


def test_sides_are_seeded_and_balanced_per_rater() -> None:
    _, first = design(seed=7)
    _, again = design(seed=7)
    _, other = design(seed=8)
    assert first == again
    assert [a.a_left for a in first] != [a.a_left for a in other]
    for slot in range(1, 7):
        sides = [a.a_left for a in first if a.slot == slot]
        assert abs(sides.count(True) - sides.count(False)) <= 1
    # Sides are drawn per pair-rater assignment: anchors do not all show A on the same side.
    anchor_sides = Counter((a.pair_id, a.a_left) for a in first if a.pair_id <= 20)
    assert any(anchor_sides[(p, True)] and anchor_sides[(p, False)] for p in range(1, 21))
    # Queues are shuffled per rater, not all in pair order.
    orders = {tuple(a.pair_id for a in first if a.slot == s) for s in range(1, 7)}
    assert len(orders) == 6


def test_too_many_pairs_is_a_clear_error() -> None:
    with pytest.raises(DesignError, match="more pairs than the 120 contracts"):
        choose_pairs(CONTRACTS, 121, 0, random.Random(0))


def test_aggregation_rules_of_appendix_g() -> None:
    assert step_majority(["yes", "yes", "no"]) == "yes"
    assert step_majority(["yes", "no"]) == "cj"  # a two-rater disagreement is CJ
    assert step_majority(["no", "cj"]) == "no"  # CJ ratings are not judgeable
    assert step_majority(["cj", "cj"]) == "cj"
    assert pair_majority(["A", "A", "B"]) == "A"
    assert pair_majority(["neither", "neither"]) == "neither"
    assert pair_majority(["A", "B"]) == "tie"  # remaining disagreement becomes tie
    assert pair_majority(["tie", "tie"]) == "tie"
    assert pair_majority(["A", "cj"]) == "A"
    assert pair_majority(["cj", "cj"]) == "cj"
    # The paper's worked example: {yes, yes, CJ, no, yes} -> 3/4.
    assert rollout_pcs(["yes", "yes", "cj", "no", "yes"]).pcs == 0.75
    assert rollout_pcs(["cj"]).pcs is None
    # The paper's packets: (A, T, B, N) = (47, 16, 13, 4) -> net +42.5 points.
    c = hcp_counts(["A"] * 47 + ["tie"] * 16 + ["B"] * 13 + ["neither"] * 4)
    assert c.n == 80 and c.net == pytest.approx(0.425)
