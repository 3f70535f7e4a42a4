"""The chat-completions request the embedded server takes: OpenAI's fields and vLLM's
`structured_outputs`, validated here, and every other field refused by name.

vLLM ignores a field it does not know (its OpenAIBaseModel logs it and goes on); a caller then
believes, say, its `n=2` or `logprobs` were honoured. Here a field that is not implemented is
accepted only with the value that asks for nothing (`n: 1`, `logprobs: false`, ...) and is
otherwise one 400 naming it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from serving.structured_outputs import StructuredOutput

# Fields this server does not implement, with the values that ask for nothing; anything else
# not declared below is refused outright.
NEUTRAL: dict[str, tuple[Any, ...]] = {
    "n": (1,),
    "logprobs": (False,),
    "top_logprobs": (0,),
    "tools": (),  # vLLM refuses an empty list too
    "tool_choice": ("none",),
    "parallel_tool_calls": (True,),
    "frequency_penalty": (0,),
    "presence_penalty": (0,),
    "logit_bias": ({},),
    "repetition_penalty": (1,),
    "min_p": (0,),
    "min_tokens": (0,),
    "ignore_eos": (False,),
    "use_beam_search": (False,),
    "echo": (False,),
    "add_generation_prompt": (True,),
    "continue_final_message": (False,),
    "add_special_tokens": (False,),
    "include_stop_str_in_output": (False,),
    "skip_special_tokens": (True,),
    "stop_token_ids": ([],),
    "chat_template_kwargs": ({},),
}
_NEUTRAL_STRUCTURED = {
    "disable_any_whitespace": (True, False),  # compact JSON is this server's only layout
    "disable_additional_properties": (False,),
    "whitespace_pattern": (),
    "structural_tag": (),
}


def unsupported(fields: dict[str, Any], neutral: dict[str, tuple[Any, ...]]) -> str | None:
    """The first field whose value asks for something not implemented, or None."""
    for name, value in fields.items():
        if value is not None and (name not in neutral or value not in neutral[name]):
            return name
    return None


class _Open(BaseModel):
    # Extra fields are kept so that they can be refused by name, not dropped unseen.
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class ChatMessage(_Open):
    """One message; extra keys (tool_calls, name...) reach the chat template, as in vLLM."""

    role: str = Field(min_length=1)
    content: str | list[dict[str, Any]] | None = None


class JsonSchemaSpec(_Open):
    name: str | None = None
    json_schema: dict[str, Any] = Field(alias="schema")
    strict: bool | None = None
    description: str | None = None


class ResponseFormat(_Open):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaSpec | None = None

    @model_validator(mode="after")
    def _schema_given(self) -> ResponseFormat:
        if self.type == "json_schema" and self.json_schema is None:
            raise ValueError("type json_schema needs a json_schema.schema")
        return self


class StructuredOutputsParams(_Open):
    """vLLM's `structured_outputs`: exactly one of its constraints."""

    json_: dict[str, Any] | str | None = Field(default=None, alias="json")
    regex: str | None = None
    choice: list[str] | None = Field(default=None, min_length=1)
    grammar: str | None = None
    json_object: bool | None = None

    def constraint(self) -> StructuredOutput:
        given = {
            "json": self.json_,
            "regex": self.regex,
            "choice": self.choice,
            "grammar": self.grammar,
            "json_object": self.json_object or None,
        }
        kinds = [k for k, v in given.items() if v is not None]
        if len(kinds) != 1:
            raise ValueError(
                f"give exactly one of json, regex, choice, grammar, json_object; got {kinds}"
            )
        kind = kinds[0]
        if kind == "json":
            return StructuredOutput.json_schema(self.json_)
        if kind == "choice":
            return StructuredOutput.choice(self.choice or [])
        return StructuredOutput(kind=kind, spec="" if kind == "json_object" else given[kind])


class StreamOptions(_Open):
    include_usage: bool | None = False
    continuous_usage_stats: Literal[False] | None = False


class ChatCompletionRequest(_Open):
    messages: list[ChatMessage] = Field(min_length=1)
    model: str | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: int | None = Field(default=None, ge=-1)
    seed: int | None = None
    stop: str | list[str] | None = None
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    response_format: ResponseFormat | None = None
    structured_outputs: StructuredOutputsParams | None = None
    user: str | None = None  # OpenAI metadata; vLLM ignores it too

    @field_validator("stop")
    @classmethod
    def _stop_list(cls, v: str | list[str] | None) -> list[str] | None:
        return [v] if isinstance(v, str) else v

    def refused_field(self) -> str | None:
        """The first field set to something this server does not do (dotted when nested)."""
        name = unsupported(self.model_extra or {}, NEUTRAL)
        if name is not None:
            return name
        for parent, model, neutral in (
            ("structured_outputs", self.structured_outputs, _NEUTRAL_STRUCTURED),
            ("stream_options", self.stream_options, {}),
            ("response_format", self.response_format, {}),
        ):
            if model is not None and (name := unsupported(model.model_extra or {}, neutral)):
                return f"{parent}.{name}"
        if self.stream_options is not None and not self.stream:
            return "stream_options"  # as vLLM: only with stream=true
        return None

    def constraint(self) -> StructuredOutput | None:
        """The one structured-output constraint the request asks for, if any."""
        rf, so = self.response_format, self.structured_outputs
        if rf is not None and rf.type != "text" and so is not None:
            raise ValueError("give response_format or structured_outputs, not both")
        if so is not None:
            return so.constraint()
        if rf is None or rf.type == "text":
            return None
        if rf.type == "json_object":
            return StructuredOutput(kind="json_object")
        return StructuredOutput.json_schema(rf.json_schema.json_schema)

    def token_budget(self) -> int | None:
        return self.max_completion_tokens or self.max_tokens
