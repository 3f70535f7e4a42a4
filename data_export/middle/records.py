"""Middle-layer SFT records: WebRider Appendix H, Figure 8 and Table 43 (Exec/MidSFT mask).

The prompt is built with the runtime's own MIDDLE_SYSTEM_PROMPT and render_middle_user_text, so
the training text equals the serving text; the target is the post-guard ActionAST JSON, never the
middle's raw output. Messages use TRL's conversational vision-language format (list-of-parts
content, one `{"type": "image"}` placeholder matched by the `images` column).
"""

from __future__ import annotations

from typing import Any

from agent_runtime.middle.base import MiddleInput
from agent_runtime.middle.format import PAPER, MiddleFormat, render_answer
from agent_runtime.middle.prompt import middle_system_prompt, render_middle_user_text
from contracts.persona import PERSONA_LIBRARY
from contracts.step_row import StepRow

# Column order agreed with training (training/data.py keeps messages + images for TRL).
COLUMNS: tuple[str, ...] = (
    "messages",
    "images",
    "base_task_id",
    "rollout_id",
    "step_index",
    "source_sha256",
    "contract_id",
    "command_verb",
)


def command_verb(command: str) -> str:
    """The top command's verb ("select", "submit", ...): a stratum a recipe may balance on."""
    words = command.split(maxsplit=1)
    return words[0].lower() if words else ""


def persona_criterion(persona: str) -> str:
    """The runner serves `persona (criterion)`; step rows carry only the name, so look it up."""
    policy = PERSONA_LIBRARY.get(persona)
    return policy.criterion if policy is not None else ""


def middle_input(row: StepRow) -> MiddleInput:
    """The MiddleInput the runner built for this step (Table 43 Exec/MidSFT mask)."""
    persona = row.contract.persona
    return MiddleInput(
        top=row.top,
        observation=row.observation,
        history=row.history,
        persona=persona,
        persona_criterion=persona_criterion(persona),
        protected_constraints=list(row.top.active_constraints),
    )


def user_text(row: StepRow, fmt: MiddleFormat = PAPER) -> str:
    return render_middle_user_text(middle_input(row), fmt)


def messages(user: str, target_json: str, fmt: MiddleFormat = PAPER) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": [{"type": "text", "text": middle_system_prompt(fmt)}]},
        {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": user}]},
        {"role": "assistant", "content": [{"type": "text", "text": target_json}]},
    ]


def build_record(
    row: StepRow, source_sha256: str, image: Any = None, fmt: MiddleFormat = PAPER
) -> dict[str, Any]:
    """One SFT record. `image` is whatever the Image feature accepts ({'bytes': png} or PIL).

    The target is the post-guard action, written in the format's answer form (the echoed
    label text, when the format has it, is the only addition)."""
    if row.action is None:
        raise ValueError("only rows with a post-guard action become records")
    answer = render_answer(row.action, row.observation, fmt)
    return {
        "messages": messages(user_text(row, fmt), answer, fmt),
        "images": [image] if image is not None else [],
        "base_task_id": row.contract.base_task_id,
        "rollout_id": row.rollout_id,
        "step_index": row.step_index,
        "source_sha256": source_sha256,
        "contract_id": row.contract.contract_id,
        "command_verb": command_verb(row.top.command),
    }
