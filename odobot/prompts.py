"""OdoBot's only model calls: OdoBot Section VII (attribute-filtered option selection prompts).

A prompt holds the task description and just the elements to choose from (attributes kept:
value, type, option, placeholder, name, aria-label, id, action, alt, checked, for, form,
href, title), never a full observation. Data entry asks for the value of one field; a
checkbox asks yes/no. Token counts come from the served model's own tokenizer.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

PromptKind = Literal["option", "value", "check"]
ODO_SYSTEM = "You resolve one step of a web task. Reply with the answer only."


class TokenCounter(Protocol):
    name: str

    def prompt(self, messages: list[dict[str, Any]]) -> int: ...
    def completion(self, text: str) -> int: ...


class Answerer(Protocol):
    """Answers a prompt: a served model, or the demo's deterministic oracle."""

    name: str

    def answer(
        self, kind: PromptKind, task: str, element: dict[str, Any], options: list[str]
    ) -> str: ...


class PromptCall(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: PromptKind
    user: str
    answer: str
    prompt_tokens: int
    completion_tokens: int


def option_messages(task: str, options_html: list[str], shown: str) -> list[dict[str, str]]:
    lines = [f"Task: {task}", "Which element should be used for this task?"]
    if shown:
        lines.append(f'(When this step was demonstrated, the choice was "{shown}".)')
    lines += [f"[{i}] {h}" for i, h in enumerate(options_html)]
    lines.append("Reply with the option number.")
    return _msgs("\n".join(lines))


def value_messages(task: str, element_html: str) -> list[dict[str, str]]:
    return _msgs(f"Task: {task}\nField: {element_html}\nReply with the exact text to enter.")


def check_messages(task: str, element_html: str) -> list[dict[str, str]]:
    return _msgs(f"Task: {task}\nCheckbox: {element_html}\nShould it be ticked? Reply yes or no.")


def _msgs(user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": ODO_SYSTEM}, {"role": "user", "content": user}]


class PromptLog:
    """Asks the answerer and counts each call's prompt and completion tokens."""

    def __init__(self, answerer: Answerer, counter: TokenCounter) -> None:
        self.answerer = answerer
        self.counter = counter
        self.calls: list[PromptCall] = []

    def ask(
        self,
        kind: PromptKind,
        messages: list[dict[str, str]],
        task: str,
        element: dict[str, Any],
        options: list[str],
    ) -> str:
        answer = self.answerer.answer(kind, task, element, options).strip()
        self.calls.append(
            PromptCall(
                kind=kind,
                user=messages[-1]["content"],
                answer=answer,
                prompt_tokens=self.counter.prompt(messages),
                completion_tokens=self.counter.completion(answer),
            )
        )
        return answer

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.calls)
