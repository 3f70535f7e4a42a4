"""Paired statistics for live comparisons: WebRider Appendix I (Table 50 paired CIs, transitions).

Exact McNemar on the discordant pairs (two-sided binomial), a seeded paired percentile
bootstrap that resamples contracts, and Wilson intervals for a single rate. numpy + math only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts.

    b: pairs where only the candidate succeeds; c: pairs where only the reference succeeds.
    Under H0 each discordant pair falls either way with probability 1/2, so
    p = min(1, 2 * P[Binomial(b + c, 1/2) <= min(b, c)]).
    """
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2.0 * tail / 2**n)


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
    z = _z(confidence)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return lo, hi


def _z(confidence: float) -> float:
    """Two-sided normal quantile via bisection on erf (no scipy)."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    target = confidence  # P(|Z| <= z) = erf(z / sqrt 2)
    lo, hi = 0.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if math.erf(mid / math.sqrt(2)) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


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

    Contracts are resampled with replacement as pairs (the same index draws both outcomes), so
    the interval of the difference reflects the pairing. Deterministic for a given seed.
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
    rng = np.random.default_rng(seed)
    means_x = np.empty(n_boot)
    means_y = np.empty(n_boot)
    for start in range(0, n_boot, chunk):
        m = min(chunk, n_boot - start)
        idx = rng.integers(0, n, size=(m, n))
        means_x[start : start + m] = x[idx].mean(axis=1)
        means_y[start : start + m] = y[idx].mean(axis=1)
    alpha = 1 - confidence
    qs = [100 * alpha / 2, 100 * (1 - alpha / 2)]

    def summary(point: float, draws: np.ndarray) -> dict[str, float]:
        lo, hi = np.percentile(draws, qs)
        return {"estimate": float(point), "ci_low": float(lo), "ci_high": float(hi)}

    out["candidate"] = summary(x.mean(), means_x)
    out["reference"] = summary(y.mean(), means_y)
    out["difference"] = summary(x.mean() - y.mean(), means_x - means_y)
    return out
