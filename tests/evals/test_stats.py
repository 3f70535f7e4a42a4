"""Exact McNemar, paired bootstrap and Wilson intervals on known tables."""

from __future__ import annotations

import math

import pytest

from evals import stats


def test_mcnemar_known_values():
    # b=10, c=2: 2 * (C(12,0)+C(12,1)+C(12,2)) / 2^12 = 2 * 79 / 4096
    assert stats.mcnemar_exact(10, 2) == pytest.approx(0.0386, abs=5e-5)
    assert stats.mcnemar_exact(10, 2) == pytest.approx(2 * 79 / 4096)
    assert stats.mcnemar_exact(2, 10) == stats.mcnemar_exact(10, 2)  # two-sided, symmetric
    assert stats.mcnemar_exact(7, 7) == 1.0
    assert stats.mcnemar_exact(0, 0) == 1.0
    assert stats.mcnemar_exact(6, 0) == pytest.approx(2 / 64)
    # Paper's Table 4 transitions (143 vs 74) are far from chance
    assert stats.mcnemar_exact(143, 74) < 1e-5
    with pytest.raises(ValueError):
        stats.mcnemar_exact(-1, 3)


def test_paired_table_counts():
    t = stats.paired_table([1, 1, 0, 0, 1], [1, 0, 1, 0, 0])
    assert t == {"both": 1, "candidate_only": 2, "reference_only": 1, "neither": 1}
    with pytest.raises(ValueError):
        stats.paired_table([1], [1, 0])


def table(both: int, b: int, c: int, neither: int, scale: int = 1):
    cand = [1] * both + [1] * b + [0] * c + [0] * neither
    ref = [1] * both + [0] * b + [1] * c + [0] * neither
    return cand * scale, ref * scale


def test_bootstrap_contains_estimate_and_is_seeded():
    cand, ref = table(30, 10, 2, 8)  # n=50: cand 0.8, ref 0.64, diff 0.16
    r = stats.paired_bootstrap(cand, ref, n_boot=4000, seed=7)
    assert r["candidate"]["estimate"] == pytest.approx(0.8)
    assert r["reference"]["estimate"] == pytest.approx(0.64)
    assert r["difference"]["estimate"] == pytest.approx(0.16)
    for k in ("candidate", "reference", "difference"):
        assert r[k]["ci_low"] <= r[k]["estimate"] <= r[k]["ci_high"]
    assert r["difference"]["ci_low"] > 0  # 10 vs 2 discordant: the difference is positive
    again = stats.paired_bootstrap(cand, ref, n_boot=4000, seed=7)
    assert again == r
    other = stats.paired_bootstrap(cand, ref, n_boot=4000, seed=8)
    assert other["difference"] != r["difference"]


def test_bootstrap_width_shrinks_with_n():
    small = stats.paired_bootstrap(*table(30, 10, 2, 8), n_boot=3000, seed=1)
    big = stats.paired_bootstrap(*table(30, 10, 2, 8, scale=16), n_boot=3000, seed=1)
    w = lambda r: r["difference"]["ci_high"] - r["difference"]["ci_low"]  # noqa: E731
    assert w(big) < w(small) / 2.5  # ~1/sqrt(16) = 1/4 in theory
    assert big["difference"]["estimate"] == pytest.approx(small["difference"]["estimate"])


def test_bootstrap_pairing_matters():
    # Identical outcomes: every resample has difference exactly 0.
    cand = [1, 0, 1, 1, 0, 1, 0, 1]
    r = stats.paired_bootstrap(cand, list(cand), n_boot=500, seed=3)
    assert r["difference"] == {"estimate": 0.0, "ci_low": 0.0, "ci_high": 0.0}
    assert r["candidate"]["ci_low"] < r["candidate"]["ci_high"]
    assert stats.paired_bootstrap([], [])["difference"] is None


def test_wilson_interval():
    lo, hi = stats.wilson_interval(8, 10)
    # textbook value for 8/10 at 95%: (0.4902, 0.9433)
    assert lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)
    lo, hi = stats.wilson_interval(0, 20)
    assert lo == 0.0 and 0.0 < hi < 0.2
    assert stats.wilson_interval(0, 0) is None
    assert stats._z(0.95) == pytest.approx(1.959964, abs=1e-5)
    assert math.isclose(sum(stats.wilson_interval(5, 10)), 1.0)


def test_wilson_matches_webrider_appendix_g():
    # Table 31 / HCP paragraph: pooled PCS 578/672 and 469/671, decisive A wins 47/60.
    for (k, n), (lo, hi) in {
        (578, 672): (0.832, 0.884),
        (469, 671): (0.663, 0.732),
        (47, 60): (0.664, 0.869),
    }.items():
        got = stats.wilson_interval(k, n)
        assert got[0] == pytest.approx(lo, abs=5e-4) and got[1] == pytest.approx(hi, abs=5e-4)


def test_sign_test_is_the_exact_binomial():
    # Paper: 47 of 60 decisive pairs for A, exact p = 1.21e-5.
    assert stats.sign_test(47, 13) == pytest.approx(1.21e-5, rel=5e-3)
    by_hand = 2 * sum(math.comb(60, k) for k in range(14)) / 2**60
    assert stats.sign_test(47, 13) == pytest.approx(by_hand)
    assert stats.sign_test(13, 47) == stats.sign_test(47, 13)
    assert stats.sign_test(3, 3) == 1.0
    assert stats.sign_test(0, 0) is None


def test_wilcoxon_exact_small_sample():
    # |d| ranks 1..5 with only rank 1 negative: W- = 1; two-sided exact p = 2 * 2/32.
    r = stats.wilcoxon_signed_rank([0.25, -0.1, 0.5, 0.4, 0.3])
    assert r["statistic"] == 1.0
    assert r["p_value"] == pytest.approx(0.125)
    z = stats.wilcoxon_signed_rank([0.0, 0.25, -0.1, 0.5, 0.4, 0.3])
    assert z["zeros_dropped"] == 1 and z["p_value"] == pytest.approx(0.125)
    assert stats.wilcoxon_signed_rank([0.0, 0.0])["p_value"] is None


def test_kappas_and_spearman():
    # Fleiss by hand: P_i = 1, 0, 1 -> mean 2/3; p_yes = p_no = 1/2 -> Pe = 1/2; k = 1/3.
    k = stats.fleiss([["yes", "yes"], ["yes", "no"], ["no", "no"]], ["yes", "no", "cj"])
    assert k == pytest.approx(1 / 3)
    assert stats.fleiss([["yes"]], ["yes", "no"]) is None
    # Cohen by hand: po = 3/4, pe = 1/2*1/4 + 1/2*3/4 = 1/2 -> k = 1/2.
    assert stats.cohen([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.5)
    assert stats.cohen([1, 1], [1, 1]) is None
    assert stats.spearman([1, 2, 3], [1, 0, 1]) == pytest.approx(0.0)
    assert stats.spearman([1, 1], [0, 1]) is None
