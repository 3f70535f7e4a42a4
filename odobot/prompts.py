"""OdoBot's only model calls: OdoBot Section VII (attribute-filtered option selection prompts).

A prompt holds the task description and just the elements to choose from (attributes kept:
value, type, option, placeholder, name, aria-label, id, action, alt, checked, for, form,
href, title), never a full observation. Data entry asks for the value of one field; a
checkbox asks yes/no; the trajectory prompt (Section IV, "Identifying the Source and
Destination Vertices") hands over the matcher's top-k trajectory descriptions to pick the
similar high-level task from. Every answer is one JSON string: the chosen element's or
description's text (decoded under an enum of the choices, so a served student can only name
one of them), the text to type, or yes/no. Token counts come from the served model's own
tokenizer.
"""

from __future__ import annotations

import json
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

PromptKind = Literal["trajectory", "option", "value", "check"]
ODO_SYSTEM = "You resolve one step of a web task. Reply with the answer only, as a JSON string."
MAX_VALUE_CHARS = 200
YES_NO = ("yes", "no")


class TokenCounter(Protocol):
    name: str

    def prompt(self, messages: list[dict[str, Any]]) -> int: ...
    def completion(self, text: str) -> int: ...


class Prompt(BaseModel):
    """One small prompt: the messages a model is sent, the choices its answer must name (none for
    a value), and the live element (what the oracle upper bound reads besides the task)."""

    model_config = ConfigDict(extra="forbid")
    kind: PromptKind
    task: str
    messages: list[dict[str, str]]
    choices: list[str] = Field(default_factory=list)
    element: dict[str, Any] = Field(default_factory=dict)

    def schema(self) -> dict[str, Any]:
        """The structured output: a choice names one of the options, a value is free text."""
        if self.choices:
            return {"type": "string", "enum": list(self.choices)}
        return {"type": "string", "minLength": 1, "maxLength": MAX_VALUE_CHARS}


class Answerer(Protocol):
    """Answers a prompt with a completion (a JSON string): a served student or the oracle."""

    name: str

    def answer(self, prompt: Prompt) -> str: ...


class PromptCall(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: PromptKind
    user: str
    completion: str = ""  # what the answerer returned, as sent back
    answer: str
    prompt_tokens: int
    completion_tokens: int


def option_names(texts: list[str]) -> list[str]:
    """What each option is called in a prompt and an answer: its text, made unique."""
    names: list[str] = []
    for i, text in enumerate(texts):
        name = " ".join(text.split()) or f"option {i + 1}"
        while name in names:
            name += f" #{i + 1}"
        names.append(name)
    return names


def option_prompt(task: str, options_html: list[str], names: list[str], shown: str) -> Prompt:
    lines = [f"Task: {task}", "Which element should be used for this task?"]
    if shown:
        lines.append(f'(When this step was demonstrated, the choice was "{shown}".)')
    lines += [f"- {h}" for h in options_html]
    lines.append("Reply with the chosen element's text.")
    return Prompt(kind="option", task=task, messages=_msgs("\n".join(lines)), choices=names,
                  element={"shown": shown})  # fmt: skip


def trajectory_prompt(task: str, descriptions: list[str], ids: list[str]) -> Prompt:
    lines = [f"Task: {task}", "Which demonstrated task is this task an instance of?"]
    lines += [f"- {d}" for d in descriptions]
    lines.append("Reply with the chosen description.")
    return Prompt(kind="trajectory", task=task, messages=_msgs("\n".join(lines)),
                  choices=option_names(descriptions), element={"trajectories": ids})  # fmt: skip


def value_prompt(task: str, element_html: str, element: dict[str, Any]) -> Prompt:
    user = f"Task: {task}\nField: {element_html}\nReply with the exact text to enter."
    return Prompt(kind="value", task=task, messages=_msgs(user), element=element)


def check_prompt(task: str, element_html: str, element: dict[str, Any]) -> Prompt:
    user = f"Task: {task}\nCheckbox: {element_html}\nShould it be ticked? Reply yes or no."
    return Prompt(kind="check", task=task, messages=_msgs(user), choices=list(YES_NO),
                  element=element)  # fmt: skip


def _msgs(user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": ODO_SYSTEM}, {"role": "user", "content": user}]


def completion_for(answer: str) -> str:
    """The completion that carries `answer` (what a student is trained to write)."""
    return json.dumps(answer, ensure_ascii=False)


def answer_of(completion: str) -> str:
    """The answer inside a completion; a reply that is no JSON string is taken as it stands."""
    try:
        value = json.loads(completion)
    except json.JSONDecodeError:
        return completion.strip()
    return value.strip() if isinstance(value, str) else str(value)


class PromptLog:
    """Asks the answerer and counts each call's prompt and completion tokens."""

    def __init__(self, answerer: Answerer, counter: TokenCounter) -> None:
        self.answerer = answerer
        self.counter = counter
        self.calls: list[PromptCall] = []

    def ask(self, prompt: Prompt) -> str:
        completion = self.answerer.answer(prompt)
        answer = answer_of(completion)
        self.calls.append(
            PromptCall(
                kind=prompt.kind,
                user=prompt.messages[-1]["content"],
                completion=completion,
                answer=answer,
                prompt_tokens=self.counter.prompt(prompt.messages),
                completion_tokens=self.counter.completion(completion),
            )
        )
        return answer

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.calls)
