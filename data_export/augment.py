"""Grounding augmentation for the base stage of a small student (no browser, no model).

A random small base has to learn two skills before the teacher's few thousand steps can
teach it anything: find the label whose text matches the command's quoted words, and copy
quoted text into `type` actions. Teacher traces alone let it memorise fixed templates
instead. So each augmented record starts from a real training-split step row and renames
the command's quoted strings (in the command, the intention, the labels and the page text
alike), shuffles and renumbers the labels and adds distractors; the target is recomputed
by the same heuristic middle and guard compiler that produced the teacher's targets, so an
augmented record is exactly what the teacher would have done on that page.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator
from typing import Any

from agent_runtime.guards import compile_action
from agent_runtime.middle.base import MiddleInput
from agent_runtime.middle.heuristic import HeuristicMiddle
from agent_runtime.middle.prompt import MIDDLE_SYSTEM_PROMPT, render_middle_user_text
from contracts.command import parse_command
from contracts.observation import ElementLabel, Observation
from contracts.step_row import StepRow
from data_export.middle.records import command_verb, middle_input, persona_criterion


def _random_word(rng: random.Random, vocab: list[str]) -> str:
    r = rng.random()
    if r < 0.5 and vocab:
        return rng.choice(vocab)
    if r < 0.8:
        n = rng.randint(2, 9)
        w = "".join(rng.choice(string.ascii_lowercase) for _ in range(n))
        return w.capitalize() if rng.random() < 0.5 else w
    n = rng.randint(3, 6)
    return "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(n))


def _rename(text: str, mapping: dict[str, str]) -> str:
    for old, new in mapping.items():
        text = text.replace(old, new)
    return text


def vocabulary(rows: list[StepRow]) -> list[str]:
    words = {w for r in rows for el in r.observation.labels for w in el.text.split() if w.isalpha()}
    return sorted(words)


def augment_row(
    row: StepRow, rng: random.Random, vocab: list[str], compact: bool = False
) -> tuple[str, str] | None:
    """One augmented (user text, target Action AST JSON), or None when the teacher would not act.

    `compact` keeps only the command and the labels: a drill several times shorter than the
    served prompt, so the same compute teaches matching and copying on many more examples.
    """
    cmd = parse_command(row.top.command)
    if cmd is None:
        return None
    quoted = [s for s in (cmd.target.text if cmd.target else None, cmd.payload) if s]
    mapping: dict[str, str] = {}
    for s in sorted(set(quoted), key=len, reverse=True):
        new = " ".join(_random_word(rng, vocab) for _ in range(max(1, len(s.split()))))
        if new != s and all(new not in m for m in mapping.values()):
            mapping[s] = new
    labels: list[ElementLabel] = [
        el.model_copy(
            update={
                "text": _rename(el.text, mapping),
                "value": _rename(el.value, mapping) if el.value else el.value,
            }
        )
        for el in row.observation.labels
    ]
    for _ in range(rng.randint(0, 4)):
        template = rng.choice(labels) if labels else None
        if template is None:
            break
        labels.insert(
            rng.randint(0, len(labels)),
            template.model_copy(update={"text": _random_word(rng, vocab), "value": None}),
        )
    if rng.random() < 0.7:
        rng.shuffle(labels)
    labels = [el.model_copy(update={"label": i}) for i, el in enumerate(labels)]
    obs = Observation(
        url=row.observation.url,
        title=row.observation.title,
        status=row.observation.status,
        labels=labels,
        page_text=_rename(row.observation.page_text, mapping),
    ).with_state_hash()
    top = row.top.model_copy(
        update={
            "command": _rename(row.top.command, mapping),
            "intention": _rename(row.top.intention, mapping),
        }
    )
    base = middle_input(row)
    inp = MiddleInput(
        top=top,
        observation=obs,
        history=base.history,
        persona=base.persona,
        persona_criterion=persona_criterion(base.persona),
        protected_constraints=base.protected_constraints,
    )
    out = HeuristicMiddle().propose(inp)
    compiled = compile_action(out.raw, obs, base.history)
    if compiled.action is None or compiled.report.rejection is not None or not out.confidence:
        return None
    if compact:
        inp = MiddleInput(
            top=top.model_copy(update={"intention": top.command}),
            observation=obs.model_copy(update={"url": ""}),
        )
    return render_middle_user_text(inp), compiled.action.to_json()


def augmented_records(
    rows: list[StepRow], n: int, seed: int, compact: bool = False
) -> Iterator[dict[str, Any]]:
    """Up to `n` text-only records; rows must already be filtered to the training split.

    Compact drills carry no system turn (they only exist to fit a random base)."""
    rng = random.Random(seed)
    usable = [
        r for r in rows if r.action is not None and r.top.decision == "browse" and r.top.command
    ]
    if not usable:
        return
    vocab = vocabulary(usable)
    # Copying quoted text is the skill a random base learns last, so rows that type are drawn
    # three times as often as the rest.
    weights = [
        3.0 if r.action is not None and r.action.action.type == "type" else 1.0 for r in usable
    ]
    made = tries = 0
    while made < n and tries < n * 4:
        tries += 1
        row = rng.choices(usable, weights)[0]
        pair = augment_row(row, rng, vocab, compact=compact)
        if pair is None:
            continue
        user, target = pair
        made += 1
        system = (
            []
            if compact
            else [{"role": "system", "content": [{"type": "text", "text": MIDDLE_SYSTEM_PROMPT}]}]
        )
        yield {
            "messages": [
                *system,
                {"role": "user", "content": [{"type": "text", "text": user}]},
                {"role": "assistant", "content": [{"type": "text", "text": target}]},
            ],
            "images": [],
            "base_task_id": f"augment/{row.contract.base_task_id}",
            "rollout_id": row.rollout_id,
            "step_index": row.step_index,
            "source_sha256": "",
            "contract_id": row.contract.contract_id,
            "command_verb": command_verb(row.top.command),
        }
