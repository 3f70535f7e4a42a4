"""Target vertex matching (OdoBot IV): parameters generalised away, sibling features apart."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from odobot.target import (
    EmbeddingMatcher,
    HybridMatcher,
    generalize,
    make_matcher,
)

# Trajectory descriptions as the template describer writes them for ten demonstrated LMS tasks.
_DATA = json.loads((Path(__file__).parent / "data" / "lms_descriptions.json").read_text())
IDS, DESCRIPTIONS = list(_DATA), list(_DATA.values())


def test_generalize_removes_quoted_values_numbers_and_unquoted_names() -> None:
    text = 'Change the role of Zoe Larsen in the course "Biology 201" to Observer.'
    assert generalize(text) == 'Change the role of X in the course "..." to X'
    assert generalize("Set my time zone to America/Edmonton.") == "Set my time zone to X"
    assert generalize("Give Ravi a score of 17 on 2027-01-05.") == "Give X a score of X on a date."


@pytest.fixture(scope="module")
def hybrid() -> HybridMatcher:
    return HybridMatcher(DESCRIPTIONS)


def _best(scores: np.ndarray) -> str:
    return IDS[int(np.argmax(scores))]


@pytest.mark.parametrize(
    ("task", "want", "embedding_alone"),
    [
        ('Add a module named "Essay 287" in the course "Biology 201".', "mod_new",
         "mod_add_assignment"),
        ('Create a group named "Review 161" in the course "Statistics 301".', "group_new",
         "group_join"),
    ],
)  # fmt: skip
def test_hybrid_score_tells_sibling_features_apart_where_the_embedding_alone_does_not(
    hybrid: HybridMatcher, task: str, want: str, embedding_alone: str
) -> None:
    query = generalize(task)
    assert _best(hybrid.dense.scores(query)) == embedding_alone
    scores = hybrid.scores(query)
    assert _best(scores) == want and scores.max() >= hybrid.min_similarity


def test_a_request_for_another_application_scores_under_the_threshold(
    hybrid: HybridMatcher,
) -> None:
    for task in ("Order a pizza with extra cheese.", "Book a room in Lisbon for two nights."):
        assert hybrid.scores(generalize(task)).max() < hybrid.min_similarity


def test_auto_is_the_hybrid_and_an_unknown_kind_is_refused() -> None:
    assert isinstance(make_matcher(DESCRIPTIONS[:2], "auto"), HybridMatcher)
    assert isinstance(make_matcher(DESCRIPTIONS[:2], "embedding"), EmbeddingMatcher)
    with pytest.raises(ValueError, match="matcher 'bm25'"):
        make_matcher(DESCRIPTIONS[:2], "bm25")
