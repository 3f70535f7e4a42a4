"""Synthetic step rows and trace dirs (WebRider Table 60) for the exporter tests and benchmark."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from contracts.actions import ActionAST, ClickAction, TypeAction
from contracts.guard_labels import GuardReport, GuardStatus, RejectReason
from contracts.history import RecentAction, RecentHistory
from contracts.observation import BBox, ElementLabel, Observation
from contracts.step_row import ContractRef, RolloutOutcome, StepRow
from contracts.top_state import TopState


def png_bytes(
    size: tuple[int, int] = (64, 48), color: tuple[int, int, int] = (200, 30, 30)
) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def step_row(
    base: str = "task-a",
    persona: str = "explicit_control",
    rollout: str = "r1",
    step: int = 0,
    *,
    confidence: float | None = 0.9,
    action: ActionAST | str | None = "click",
    decision: str = "browse",
    guard_rejection: RejectReason | None = None,
    raw: str | None = None,
    screenshot: str | None = "shots/s.png",
    n_labels: int = 3,
) -> StepRow:
    if action == "click":
        action = ActionAST(action=ClickAction(target=1))
    elif action == "type":
        action = ActionAST(action=TypeAction(target=2, text="running shoes", submit=True))
    labels = [
        ElementLabel(
            label=i,
            role="button" if i % 2 else "link",
            text=f"Item {i} for {base}",
            bbox=BBox(x=1, y=2, width=3, height=4),
        )
        for i in range(n_labels)
    ]
    guard = None
    if guard_rejection is not None:
        guard = GuardReport(
            status=GuardStatus.REJECTED, rejection=guard_rejection, fallback_used=True
        )
    elif action is not None:
        guard = GuardReport(status=GuardStatus.PARSED)
    return StepRow(
        rollout_id=rollout,
        step_index=step,
        contract=ContractRef(
            contract_id=f"{base}::{persona}", base_task_id=base, sha256="0" * 64, persona=persona
        ),
        top=TopState(
            intention=f"find the cheapest option for {base}",
            command=f"open item for {base}",
            active_constraints=["under $50", "ships to CA"],
            decision=decision,
        ),
        observation=Observation(
            url=f"http://127.0.0.1/{base}/{step}", labels=labels, screenshot=screenshot
        ),
        history=RecentHistory(
            actions=[
                RecentAction(
                    step_index=0,
                    url="http://127.0.0.1/",
                    action='{"type":"click"}',
                    action_type="click",
                )
            ],
            failures=["target 9 not visible"],
        ),
        middle_raw=raw
        if raw is not None
        else (action.to_json() if isinstance(action, ActionAST) else "?"),
        middle_confidence=confidence,
        action=action,
        guard=guard,
    )


def outcome_row(base: str = "task-a", rollout: str = "r1") -> RolloutOutcome:
    return RolloutOutcome(
        rollout_id=rollout,
        contract=ContractRef(contract_id=f"{base}::p", base_task_id=base, sha256="0" * 64),
    )


def write_trace(
    root: Path,
    rows: list[Any],
    name: str = "traces/shard-0.jsonl",
    extra_lines: tuple[str, ...] = (),
    screenshot: str = "shots/s.png",
) -> Path:
    """Write rows (models or raw strings) as JSONL under root, plus the shared screenshot."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    shot = root / screenshot
    shot.parent.mkdir(parents=True, exist_ok=True)
    if not shot.exists():
        shot.write_bytes(png_bytes())
    with open(path, "a") as f:
        for r in rows:
            f.write((r if isinstance(r, str) else r.model_dump_json()) + "\n")
        for line in extra_lines:
            f.write(line + "\n")
    return path
