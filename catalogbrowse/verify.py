"""Third-party check of a run: KnowPlan, Proposition 1 (recomputable from the hash-chained trace).

Needs only the run directory (receipts, documents, facts, the claimed certificate) and the frozen
snapshot. It re-links the receipt chain, checks every revealed byte against the snapshot
manifest, checks the budgets, replays the revealed pages through the same deterministic adapters
(no policy, no model), recomputes the certificate with two closure passes, and checks every
document fact's span on a page the run actually opened.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catalogbrowse.adapters import read_page
from catalogbrowse.closure import certificate
from catalogbrowse.state import CatalogState
from envs.catalog.gate import MODEL_BUDGET, PAGE_BUDGET
from envs.catalog.receipts import chain_errors, read_receipts
from envs.catalog.snapshot import Snapshot, sha256
from planner.documents import DocumentError, load_docs


@dataclass
class Verdict:
    ok: bool
    gaps: list[str] = field(default_factory=list)
    certificate: dict[str, Any] = field(default_factory=dict)


def _replay(root: str, reveals: list[tuple[str, int, bytes, str]]) -> CatalogState:
    state = CatalogState(root)
    for url, status, body, ctype in reveals:
        state.fold(read_page(url, status, body, ctype))
    return state


def _doc_facts(run: Path) -> tuple[list[dict], list[str]]:
    """Facts the documents state, with provenance, plus load errors."""
    try:
        docs = load_docs(run)
    except DocumentError as exc:
        return [], [str(exc)]
    out = []
    for c in docs.courses.courses:
        p = c.provenance
        out.append(
            {
                "entity": f"course:{c.id}",
                "field": "id",
                "value": c.id,
                "source": p.source,
                "start": p.start,
                "end": p.end,
            }
        )
    for g in docs.programs.programs:
        p = g.provenance
        out.append(
            {
                "entity": f"program:{g.id}",
                "field": "name",
                "value": g.name,
                "source": p.source,
                "start": p.start,
                "end": p.end,
            }
        )
    return out, []


def verify_run(run: str | Path, snapshot_dir: str | Path | None = None) -> Verdict:
    run = Path(run)
    gaps: list[str] = []
    try:
        claimed = json.loads((run / "certificate.json").read_text())
    except (OSError, json.JSONDecodeError) as exc:
        return Verdict(False, [f"{run / 'certificate.json'}: cannot read: {exc}"])
    snap_path = snapshot_dir or claimed.get("snapshot_dir")
    if not snap_path:
        return Verdict(False, ["no snapshot: pass --snapshot DIR (the run did not record one)"])
    snap = Snapshot(snap_path)
    if snap.manifest_sha256 != claimed.get("snapshot_sha256"):
        gaps.append("the snapshot manifest is not the one the run was made against")
    try:
        receipts = read_receipts(run / "receipts.jsonl")
    except (OSError, ValueError) as exc:
        return Verdict(False, [str(exc)])
    gaps += chain_errors(receipts)
    opens = sum(
        1 for r in receipts if r.type == "commit" and (r.action or {}).get("kind") == "open"
    )
    calls = sum(
        1 for r in receipts if r.type == "commit" and (r.action or {}).get("kind") == "model"
    )
    if claimed.get("policy") != "exhaustive" and opens > PAGE_BUDGET:
        gaps.append(f"{opens} page opens exceed the budget of {PAGE_BUDGET}")
    if calls > MODEL_BUDGET:
        gaps.append(f"{calls} model calls exceed the budget of {MODEL_BUDGET}")
    reveals = []
    for r in receipts:
        if r.type != "reveal" or r.url is None:
            continue
        status, body, ctype = snap.get(r.url)
        if sha256(body) != r.sha256 or status != r.status:
            gaps.append(f"receipt {r.seq}: {r.url} revealed bytes the snapshot does not hold")
        reveals.append((r.url, status, body, ctype))
    root = snap.manifest.root
    first, second = _replay(root, reveals), _replay(root, reveals)
    quiet = 2 if first.summary() == second.summary() else 0
    facts = []
    try:
        for line in (run / "facts.jsonl").read_text().splitlines():
            if line.strip():
                facts.append(json.loads(line))
    except (OSError, json.JSONDecodeError) as exc:
        gaps.append(f"{run / 'facts.jsonl'}: {exc}")
    doc_facts, doc_errors = _doc_facts(run)
    gaps += doc_errors
    cert = certificate(second, quiet, facts + doc_facts, not doc_errors)
    for name, held in cert["conditions"].items():
        if not held:
            gaps.append(f"certificate condition {name} does not hold")
    gaps += [f"pending obligation: {k}" for k in cert["pending"][:20]]
    gaps += cert["provenance_errors"][:20]
    if claimed.get("holds") and not cert["holds"]:
        gaps.append("the run claims a certificate that does not recompute")
    return Verdict(not gaps, gaps, cert)
