"""`pathwise audit create`: blinded packets from two arms' runs (WebRider Appendix G, Table 30).

A packet is one contract and the final rollout of each arm on it. Step fields a rater may see
and the screenshots are copied into the study file; run names, policies, raw model output,
guard labels and the automatic gates stay out of what is displayed (the outcome row is kept
apart, for the report only). Rollout keys are numbered in a shuffled order so a key reveals no arm.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from pydantic import BaseModel
from tqdm import tqdm

from common.outputs import atomic_file, refuse_existing
from contracts.step_row import RolloutOutcome, StepRow
from evals.audit.config import AuditSettings
from evals.audit.design import Assignment, PlannedPair, assign, choose_pairs
from evals.audit.store import StepDisplay, StudyError, connect, now, write_schema
from evals.viewer.contract_view import contract_files_for, contract_view, load_contract_index
from evals.viewer.reader import RolloutData, RunReader
from evals.viewer.views import describe


class StudySummary(BaseModel):
    path: str
    pairs: int
    anchors: int
    raters: int
    rollouts: int
    steps: int
    screenshots: int
    shared_contracts: int
    skipped_read_errors: int


def final_rollouts(reader: RunReader) -> dict[str, RolloutData]:
    """The last finished attempt per contract (what `load_outcomes` scores)."""
    best: dict[str, tuple[int, RolloutData]] = {}
    for ro in reader.rollouts.values():
        if ro.outcome is None:
            continue
        cid = ro.outcome.contract.contract_id
        attempt = ro.outcome.attempt
        if cid not in best or attempt >= best[cid][0]:
            best[cid] = (attempt, ro)
    return {cid: ro for cid, (_, ro) in best.items()}


def display_of(step: StepRow) -> StepDisplay:
    if step.top.is_terminal:
        action = f"decides: {step.top.decision}"
    else:
        action = describe(step.action, step.observation)
    return StepDisplay(
        index=step.step_index,
        intention=step.top.intention,
        action=action,
        decision=step.top.decision,
        answer=step.top.answer,
        url=step.observation.url,
        title=step.observation.title,
    )


def _screenshot(reader: RunReader, step: StepRow) -> bytes | None:
    rel = step.observation.screenshot
    path = reader.file_path(rel) if rel else None
    try:
        return path.read_bytes() if path else None
    except OSError:
        return None


def create_study(
    arm_a: Path,
    arm_b: Path,
    out: Path,
    settings: AuditSettings,
    contract_files: list[Path] | None = None,
    gate_labels: bool = False,
) -> StudySummary:
    refuse_existing(out)
    readers = {"A": RunReader(arm_a).refresh(), "B": RunReader(arm_b).refresh()}
    for arm, r in readers.items():
        if not r.rollouts:
            why = "; ".join(e.message for e in r.errors) or "no rollouts"
            raise StudyError(f"arm {arm} ({r.run_dir}): {why}")
    finals = {arm: final_rollouts(r) for arm, r in readers.items()}
    shared = sorted(finals["A"].keys() & finals["B"].keys())
    rng = random.Random(settings.seed)
    pairs = choose_pairs(shared, settings.pairs, settings.anchors, rng)
    assignments = assign(pairs, settings.raters, settings.coverage_raters, rng)
    index, errors = load_contract_index(
        [*(contract_files or []), *contract_files_for(arm_a), *contract_files_for(arm_b)]
    )
    if errors:
        raise StudyError(errors[0])

    meta = {
        "created_at": now(),
        "settings": settings.model_dump(),
        "arms": {arm: {"name": r.name, "path": str(r.run_dir)} for arm, r in readers.items()},
        "gate_labels": gate_labels,
    }
    with atomic_file(out) as tmp, connect(tmp, create=True) as con:
        write_schema(con, meta)
        counts = _fill(con, pairs, assignments, finals, readers, index, rng)
    return StudySummary(
        path=str(out),
        pairs=len(pairs),
        anchors=sum(p.kind == "anchor" for p in pairs),
        raters=settings.raters,
        shared_contracts=len(shared),
        skipped_read_errors=sum(len(r.errors) for r in readers.values()),
        **counts,
    )


def _fill(
    con: sqlite3.Connection,
    pairs: list[PlannedPair],
    assignments: list[Assignment],
    finals: dict[str, dict[str, RolloutData]],
    readers: dict[str, RunReader],
    index: dict,
    rng: random.Random,
) -> dict[str, int]:
    for p in pairs:
        ro = finals["A"][p.contract_id]
        steps = ro.ordered_steps()
        outcome: RolloutOutcome = ro.outcome  # type: ignore[assignment]
        first = steps[0] if steps else None
        view = contract_view(outcome.contract, first, index.get(p.contract_id))
        con.execute(
            "INSERT INTO pairs (pair_id, contract_id, kind, contract_json) VALUES (?, ?, ?, ?)",
            (p.pair_id, p.contract_id, p.kind, view.model_dump_json()),
        )
    members = [(p, arm) for p in pairs for arm in ("A", "B")]
    keys = list(range(1, len(members) + 1))
    rng.shuffle(keys)
    n_steps = n_shots = 0
    bar = tqdm(
        zip(keys, members, strict=True), total=len(members), desc="copying rollouts", unit="ro"
    )
    for key, (p, arm) in bar:
        ro = finals[arm][p.contract_id]
        steps = ro.ordered_steps()
        con.execute(
            "INSERT INTO rollouts (rollout_key, pair_id, arm, rollout_id, n_steps, outcome_json) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (key, p.pair_id, arm, ro.rollout_id, len(steps), ro.outcome.model_dump_json()),  # type: ignore[union-attr]
        )
        for s in steps:
            png = _screenshot(readers[arm], s)
            shown = display_of(s).model_copy(update={"screenshot": png is not None})
            con.execute(
                "INSERT INTO steps (rollout_key, step_index, display_json, screenshot) "
                "VALUES (?, ?, ?, ?)",
                (key, s.step_index, shown.model_dump_json(), png),
            )
            n_steps += 1
            n_shots += png is not None
    slots = sorted({a.slot for a in assignments})
    con.executemany("INSERT INTO slots (slot) VALUES (?)", [(s,) for s in slots])
    con.executemany(
        "INSERT INTO assignments (slot, pair_id, position, a_left) VALUES (?, ?, ?, ?)",
        [(a.slot, a.pair_id, a.position, int(a.a_left)) for a in assignments],
    )
    return {"rollouts": len(members), "steps": n_steps, "screenshots": n_shots}
