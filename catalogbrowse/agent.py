"""CatalogBrowse and its baselines over one gate: KnowPlan, Algorithm 1 and "Controls".

`catalogbrowse` scores every legal action by Eq. 2 and stops when the closure certificate holds;
`bfs` opens discovered links first-in first-out under the same budget; `exhaustive` does the same
with no budget (the access-intensive reference). All three share the adapters, the parsers, the
model fallback and the finalizer, so only the policy differs.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catalogbrowse.adapters import read_page
from catalogbrowse.closure import certificate
from catalogbrowse.emit import emit
from catalogbrowse.fallback import ClauseModel
from catalogbrowse.infer import inferred
from catalogbrowse.policy import Scorer, load_config
from catalogbrowse.prereq import parse_prereq
from catalogbrowse.source import BudgetExhausted, GateClient, state_hash
from catalogbrowse.state import CatalogState
from planner.documents import save_docs

POLICIES = ("catalogbrowse", "bfs", "exhaustive")


@dataclass
class RunResult:
    policy: str
    stop: str  # closure | budget | frontier
    pages: int
    model_calls: int
    certificate: dict[str, Any]
    seconds: float
    trace: list[dict] = field(default_factory=list)


def replay(root: str, state: CatalogState) -> CatalogState:
    """A closure pass: rebuild the state from every opened page, from scratch."""
    fresh = CatalogState(root)
    for url in state.opened:
        fresh.fold(state.yields[url])
    return fresh


def _done(state: CatalogState) -> int:
    return sum(o.done for o in state.obligations(inferred(state)).values())


def _type_spans(
    state: CatalogState, model: ClauseModel, client: GateClient
) -> tuple[dict[str, Any], int]:
    """The clause model on the spans the grammar left untyped, within the gate's model budget:
    each distinct span once, the spans most courses share first (a call discharges the prereq
    obligation of every course carrying its span). Returns span -> clause and the calls made."""
    counts: Counter[str] = Counter()
    texts = [e.prereq.value for e in state.courses.values() if e.prereq is not None]
    texts += [f.value for rec, _url in state.programs.values() for _label, f in rec.groups]
    for text in texts:
        counts.update({s.text for s in parse_prereq(text).unresolved})
    typed: dict[str, Any] = {}
    paid = [0]

    def seal(s: str, attempt: int) -> None:
        client.seal_model_call(s, attempt, state_hash(state.summary()))
        paid[0] += 1

    for span, _n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        try:
            res = model(span, seal)
        except BudgetExhausted:
            break
        if res.clause is not None:
            typed[span] = res.clause
    return typed, paid[0]


def browse(
    base_url: str,
    out: str | Path,
    policy: str = "catalogbrowse",
    model: ClauseModel | None = None,
    config: dict | None = None,
    progress: Callable[[int], None] | None = None,
) -> RunResult:
    """Browse the snapshot behind the gate at base_url; write documents, receipts, certificate."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
    cfg = config or load_config()
    t0 = time.perf_counter()
    client = GateClient(base_url)
    root = client.info["root"]
    state = CatalogState(root)
    scorer = Scorer(cfg)
    trace: list[dict] = []
    quiet, stop, calls = 0, "frontier", 0
    try:
        while True:
            if policy == "catalogbrowse":
                obs = state.obligations(inferred(state))
                kinds = {u: ln.role for u, ln in state.links.items()}
                acts = [a for a in scorer.actions(obs, kinds) if a.score > 0]
                if not acts:
                    fresh = replay(root, state)
                    quiet = 0 if fresh.summary() != state.summary() else quiet + 1
                    state = fresh
                    if quiet >= cfg["closure_passes"]:
                        stop = "closure"
                        break
                    continue
                quiet = 0
                act = acts[0]
                url, kind, score = act.url, act.kind, act.score
            else:
                opened = set(state.opened)
                nxt = next((u for u in state.links if u not in opened), None)
                if nxt is None:
                    stop = "frontier"
                    break
                url, kind, score = nxt, state.links[nxt].role, 0.0
            before = _done(state) if policy == "catalogbrowse" else 0
            try:
                rev = client.open(url, state_hash(state.summary()))
            except BudgetExhausted:
                stop = "budget"
                break
            y = read_page(url, rev.status, rev.body, rev.content_type)
            state.fold(y)
            if policy == "catalogbrowse" and kind in scorer.stats:
                scorer.observe(kind, _done(state) > before)
            trace.append(
                {
                    "url": url,
                    "kind": kind,
                    "score": round(score, 4),
                    "status": rev.status,
                    "adapter": y.adapter,
                    "failed": y.failed,
                }
            )
            if progress:
                progress(len(state.opened))

        typed: dict[str, Any] = {}
        if model is not None:
            typed, calls = _type_spans(state, model, client)
        institution = client.info.get("institution") or root
        emitted = emit(state, institution, typed.get if model is not None else None)
        receipts = client.receipts()
    finally:
        client.close()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    save_docs(emitted.docs, out)
    cert = certificate(state, quiet, emitted.facts, True, cfg["closure_passes"])
    if policy != "catalogbrowse":
        cert["conditions"]["fixed_point"] = False  # baselines do not run closure passes
        cert["holds"] = False
    cert |= {
        "policy": policy,
        "stop": stop,
        "pages": len(state.opened),
        "model_calls": calls,
        "snapshot_sha256": client.info["snapshot_sha256"],
        "root": root,
        "base_url": base_url,
    }
    with open(out / "receipts.jsonl", "w") as f:
        for r in receipts:
            f.write(r.model_dump_json() + "\n")
    with open(out / "facts.jsonl", "w") as f:
        for fact in emitted.facts:
            f.write(json.dumps(fact) + "\n")
    (out / "unresolved.json").write_text(json.dumps(emitted.unresolved, indent=1) + "\n")
    (out / "clauses.json").write_text(json.dumps(emitted.clauses, indent=1) + "\n")
    (out / "trace.json").write_text(json.dumps(trace, indent=1) + "\n")
    (out / "certificate.json").write_text(json.dumps(cert, indent=1) + "\n")
    return RunResult(policy, stop, len(state.opened), calls, cert, time.perf_counter() - t0, trace)
