"""OdoBot's model: a served student answers the small prompts (OdoBot Section IV, Table III).

The prompt goes to an OpenAI-compatible endpoint (vLLM serving the trained LoRA student, or any
hosted model) with its structured output: a choice is decoded under the enum of the live
options, a value as one JSON string. Nothing but the prompt reaches the model, and nothing but
its completion reaches the page: the task's values get into the LMS only through this answer.
"""

from __future__ import annotations

from odobot.prompts import MAX_VALUE_CHARS, Prompt
from serving.client import ChatClient, ChatRequestError

# A value is at most MAX_VALUE_CHARS characters; a token holds at least one, plus the quotes.
MAX_ANSWER_TOKENS = 64


class StudentAnswerer:
    """Answers with a served model; `errors` keeps the requests that got no completion."""

    def __init__(self, client: ChatClient, *, max_tokens: int = MAX_ANSWER_TOKENS) -> None:
        self.client = client
        self.name = f"student:{client.model}"
        self.max_tokens = max_tokens
        self.errors: list[str] = []

    def answer(self, prompt: Prompt) -> str:
        try:
            reply = self.client.chat(
                prompt.messages,
                json_schema=prompt.schema(),
                temperature=0.0,
                max_tokens=min(self.max_tokens, MAX_VALUE_CHARS),
                schema_name=f"odobot_{prompt.kind}",
            )
        except ChatRequestError as e:
            # No completion is an empty answer: the step fails as a wrong answer would.
            self.errors.append(str(e))
            return ""
        return reply.text
