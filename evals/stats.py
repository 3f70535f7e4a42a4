"""Paired statistics: WebRider Appendix I (Table 50 paired CIs, transitions) and Appendix G
(Wilson intervals, Wilcoxon signed-rank on rollout-level PCS differences, exact sign test).

Thin, named wrappers over scipy and statsmodels so every report states the same test the
same way: exact McNemar on the discordant pairs, a seeded paired percentile bootstrap that
resamples contracts, Wilson intervals for a single rate, the Wilcoxon signed-rank test, the
exact binomial sign test, Fleiss' and Cohen's kappa and Spearman's rho.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa
from statsmodels.stats.proportion import proportion_confint


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts.

    b: pairs where only the candidate succeeds; c: pairs where only the reference succeeds.
    Under H0 each discordant pair falls either way with probability 1/2 (statsmodels'
    exact McNemar: min(1, 2 * P[Binomial(b + c, 1/2) <= min(b, c)])).
    """
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    if b + c == 0:
        return 1.0
    return float(mcnemar([[0, b], [c, 0]], exact=True).pvalue)


def paired_table(candidate: Sequence[bool], reference: Sequence[bool]) -> dict[str, int]:
    """2x2 counts of paired outcomes: both, candidate only (b), reference only (c), neither."""
    if len(candidate) != len(reference):
        raise ValueError("paired outcomes must have equal length")
    both = only_cand = only_ref = neither = 0
    for x, y in zip(candidate, reference, strict=True):
        if x and y:
            both += 1
        elif x:
            only_cand += 1
        elif y:
            only_ref += 1
        else:
            neither += 1
    return {
        "both": both,
        "candidate_only": only_cand,
        "reference_only": only_ref,
        "neither": neither,
    }


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval for a binomial rate k/n; None when n == 0."""
    if n == 0:
        return None
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    lo, hi = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    # The score interval touches the boundary exactly at 0/n and n/n; keep it exact there.
    lo = 0.0 if k == 0 else max(0.0, float(lo))
    hi = 1.0 if k == n else min(1.0, float(hi))
    return lo, hi


def _z(confidence: float) -> float:
    """Two-sided normal quantile for a confidence level."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    return float(sps.norm.ppf(0.5 + confidence / 2))


def paired_bootstrap(
    candidate: Sequence[bool],
    reference: Sequence[bool],
    *,
    n_boot: int = 10_000,
    seed: int = 20260612,
    confidence: float = 0.95,
    chunk: int = 1_000,
) -> dict[str, Any]:
    """Percentile bootstrap CIs for both success rates and their difference.

    Contracts are resampled with replacement as pairs (scipy's `paired=True`: the same index
    draws both outcomes), so the interval of the difference reflects the pairing.
    Deterministic for a given seed.
    """
    x = np.asarray(candidate, dtype=np.float64)
    y = np.asarray(reference, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("paired outcomes must be two 1-D sequences of equal length")
    n = x.size
    out: dict[str, Any] = {
        "n": int(n),
        "n_boot": n_boot,
        "seed": seed,
        "confidence": confidence,
        "method": "percentile, paired resampling of contracts",
    }
    if n == 0:
        out.update(candidate=None, reference=None, difference=None)
        return out
    points = (float(x.mean()), float(y.mean()), float(x.mean() - y.mean()))
    if n == 1:  # every resample is the one contract: the interval is the point
        lows = highs = points
    else:

        def rates(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
            ma, mb = a.mean(axis=axis), b.mean(axis=axis)
            return np.stack([ma, mb, ma - mb])

        res = sps.bootstrap(
            (x, y),
            rates,
            paired=True,
            vectorized=True,
            n_resamples=n_boot,
            batch=chunk,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
        lows = tuple(float(v) for v in res.confidence_interval.low)
        highs = tuple(float(v) for v in res.confidence_interval.high)
    for i, key in enumerate(("candidate", "reference", "difference")):
        out[key] = {"estimate": points[i], "ci_low": lows[i], "ci_high": highs[i]}
    return out


def wilcoxon_signed_rank(differences: Sequence[float]) -> dict[str, Any]:
    """Two-sided Wilcoxon signed-rank test on paired differences (scipy, method 'auto').

    Zero differences are dropped (Wilcoxon's original treatment); scipy computes the exact
    null distribution for small samples, ties included, and the normal approximation beyond.
    """
    d = np.asarray(differences, dtype=np.float64)
    nonzero = int(np.count_nonzero(d))
    out: dict[str, Any] = {
        "n": int(d.size),
        "n_nonzero": nonzero,
        "zeros_dropped": d.size - nonzero,
    }
    if nonzero == 0:
        out.update(statistic=None, p_value=None)
        return out
    res = sps.wilcoxon(d, zero_method="wilcox", alternative="two-sided", method="auto")
    out.update(statistic=float(res.statistic), p_value=float(res.pvalue))
    return out


def sign_test(wins: int, losses: int) -> float | None:
    """Two-sided exact binomial sign test of wins against losses (ties left out); None if 0."""
    n = wins + losses
    if n == 0:
        return None
    return float(sps.binomtest(wins, n, 0.5, alternative="two-sided").pvalue)


def fleiss(ratings: Sequence[Sequence[str]], categories: Sequence[str]) -> float | None:
    """Fleiss' kappa; `ratings[i]` holds every rater's category for item i (equal counts)."""
    rows = [list(r) for r in ratings]
    if not rows or len(rows[0]) < 2 or len({len(r) for r in rows}) != 1:
        return None
    index = {c: i for i, c in enumerate(categories)}
    coded = np.array([[index[c] for c in r] for r in rows])
    table, _ = aggregate_raters(coded, n_cat=len(categories))
    value = float(fleiss_kappa(table, method="fleiss"))
    return None if math.isnan(value) else value


def cohen(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's kappa of two binary raters; None when chance agreement is 1 (both constant)."""
    if len(a) != len(b) or not a:
        return None
    table = np.zeros((2, 2))
    for x, y in zip(a, b, strict=True):
        table[int(bool(x)), int(bool(y))] += 1
    n = table.sum()
    chance = float((table.sum(axis=0) * table.sum(axis=1)).sum() / (n * n))
    if chance >= 1.0:
        return None
    return float(cohens_kappa(table, return_results=False))


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation (None when either side is constant or n < 2)."""
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    return float(sps.spearmanr(x, y).statistic)
