"""Build a synthetic snapshot with gold, plain or masked: KnowPlan, "Masked-source recovery".

Masked track: a stratified 10% of index pages (at least one; never the root, nor a top-level list
that is the only page of its stratum) lose every direct
link to them; the pages stay in the snapshot. An entity enters the masked denominator when none
of its evidence pages is reachable from the root any more (it was reachable before masking).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from envs.catalog.snapshot import write_snapshot
from envs.catalog.synth.families import FAMILIES
from envs.catalog.synth.gold import gold_docs
from envs.catalog.synth.school import make_school
from envs.catalog.synth.site import Site
from planner.documents import save_docs

MASK_SHARE = 0.10
FROZEN_AT = "2025-09-01T00:00:00+00:00"


def choose_masked(site: Site, seed: int, share: float = MASK_SHARE) -> set[str]:
    """Stratified sample of index pages: round-robin over strata, largest stratum first."""
    rng = random.Random(f"mask:{seed}")
    strata: dict[str, list[str]] = {}
    for url, s in sorted(site.index_pages.items()):
        if url != site.root:
            strata.setdefault(s, []).append(url)
    # Top-level lists (a stratum of one page) stay: masking one would hide a whole catalog.
    if any(len(v) > 1 for v in strata.values()):
        strata = {s: v for s, v in strata.items() if len(v) > 1}
    k = max(1, round(share * sum(len(v) for v in strata.values())))
    for v in strata.values():
        rng.shuffle(v)
    order = sorted(strata, key=lambda s: (-len(strata[s]), s))
    out: list[str] = []
    while len(out) < k and any(strata.values()):
        for s in order:
            if strata[s] and len(out) < k:
                out.append(strata[s].pop())
    return set(out)


def masked_denominator(plain: Site, masked: Site) -> list[str]:
    before, after = plain.reachable(), masked.reachable()
    return sorted(
        key for key, urls in masked.evidence.items() if urls & before and not urls & after
    )


def write_gold(out: Path, docs, meta: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    save_docs(docs, out)
    (out / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")


def build_synth(family: str, seed: int, out: Path, masked: bool = False) -> dict:
    """OUT/site (the snapshot the server serves) and OUT/gold (never served)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; choose from {', '.join(FAMILIES)}")
    out = Path(out)
    school = make_school(seed, family)
    render = FAMILIES[family]
    site = render(school, set())
    hidden: set[str] = set()
    denominator: list[str] = []
    if masked:
        hidden = choose_masked(site, seed)
        msite = render(make_school(seed, family), hidden)
        denominator = masked_denominator(site, msite)
        site = msite
    docs = gold_docs(school, site)
    write_snapshot(out / "site", school.name, family, site.root, site.pages, FROZEN_AT)
    meta = {
        "family": family,
        "seed": seed,
        "track": "masked" if masked else "plain",
        "root": site.root,
        "index_pages": sorted(site.index_pages),
        "masked_pages": sorted(hidden),
        "masked_entities": denominator,
        "evidence": {k: sorted(v) for k, v in sorted(site.evidence.items())},
    }
    write_gold(out / "gold", docs, meta)
    return meta
