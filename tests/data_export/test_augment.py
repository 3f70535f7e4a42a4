"""Grounding augmentation: renamed, reshuffled pages whose targets the teacher recomputes."""

from __future__ import annotations

import json
import re

from contracts.actions import ActionAST, ClickAction, TypeAction
from contracts.observation import BBox, ElementLabel, Observation
from contracts.step_row import ContractRef, StepRow
from contracts.top_state import TopState
from data_export.augment import augment_row, augmented_records, vocabulary


def _row(command: str, labels: list[tuple[str, str]], action: ActionAST) -> StepRow:
    return StepRow(
        rollout_id="r@0",
        step_index=0,
        contract=ContractRef(
            contract_id="c", base_task_id="b", sha256="0" * 64, persona="explicit_control"
        ),
        top=TopState(intention=f"Goal: {command}", command=command),
        observation=Observation(
            url="http://127.0.0.1/x",
            labels=[
                ElementLabel(
                    label=i, role=role, text=text, bbox=BBox(x=0, y=20 * i, width=50, height=18)
                )
                for i, (role, text) in enumerate(labels)
            ],
        ),
        action=action,
    )


CLICK = _row(
    'click "Submit" button',
    [("textbox", ""), ("button", "Cancel"), ("button", "Submit")],
    ActionAST(action=ClickAction(target=2)),
)
TYPE = _row(
    'type "Nieves" into textbox',
    [("textbox", ""), ("button", "Submit")],
    ActionAST(action=TypeAction(target=0, text="Nieves")),
)


def _labels(user: str) -> dict[int, str]:
    return {
        int(m.group(1)): json.loads(m.group(3))
        for m in re.finditer(r"^\[(\d+)\] (\S+).*? (\".*\")$", user, re.M)
    }


def test_click_target_follows_the_renamed_text():
    import random

    rng = random.Random(3)
    vocab = vocabulary([CLICK, TYPE])
    seen_targets = set()
    for _ in range(40):
        user, target = augment_row(CLICK, rng, vocab)
        ast = ActionAST.model_validate_json(target)
        command = re.search(r'^Command: click (".*?") button', user, re.M)
        wanted = json.loads(command.group(1))
        assert (
            _labels(user)[ast.action.target] == wanted
        )  # the label the teacher picks is the renamed one
        seen_targets.add(ast.action.target)
    assert len(seen_targets) > 1, "labels were never reshuffled"


def test_type_payload_is_renamed_and_copied():
    import random

    rng = random.Random(5)
    payloads = set()
    for _ in range(30):
        user, target = augment_row(TYPE, rng, [])
        ast = ActionAST.model_validate_json(target)
        payload = json.loads(re.search(r'^Command: type (".*?") into', user, re.M).group(1))
        assert ast.action.type == "type" and ast.action.text == payload
        payloads.add(payload)
    assert len(payloads) > 20 and "Nieves" not in payloads


def test_records_are_deterministic_for_a_seed():
    a = [
        r["messages"][2]["content"][0]["text"] for r in augmented_records([CLICK, TYPE], 25, seed=1)
    ]
    b = [
        r["messages"][2]["content"][0]["text"] for r in augmented_records([CLICK, TYPE], 25, seed=1)
    ]
    assert a == b and len(a) == 25
