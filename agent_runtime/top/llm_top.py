"""LLM top layer over an OpenAI-compatible endpoint: WebRider Eq. 2, Appendix H Tables 42 and 48.

Temperature 0, JSON output validated against a TopState-decision schema with pydantic,
one repair retry that shows the model its own error, then a safe `stop` (or `block` when
the page shows an external-access signal) with the reason in `blockers`. The contract and
the evidence ledger stay with this object; the model only proposes the next decision.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from agent_runtime.chat import open_client, usage_of
from contracts import command as grammar
from contracts.history import RecentHistory
from contracts.intent import IntentContract
from contracts.observation import Observation
from contracts.step_row import TokenUsage
from contracts.top_state import Decision, EvidenceItem, TopState
from serving.client import ChatClient, ChatRequestError
from serving.endpoint import EndpointSpec

MAX_PAGE_TEXT = 1500
MAX_LABELS = 40

TOP_SYSTEM_PROMPT = (
    "You are the top layer of a guarded web agent. You keep the task contract and decide, "
    "each step, one of: browse (give the middle layer ONE compact command), ask (a missing "
    "user fact changes correct behavior), answer (every evidence obligation is covered by "
    "what the page showed), stop (the task is finished or cannot progress), block (an "
    "external-access interruption or a material blocker; never bypass it). Reply with one "
    'JSON object: {"decision": ..., "intention": "...", "command": "...", '
    '"missing_evidence": [...], "blockers": [...], "expected_observation": "...", '
    '"answer": null or "..."}. Commands use this grammar:\n' + grammar.GRAMMAR_HELP
)


class TopDecision(BaseModel):
    """What the model must return; `command` is required to browse, `answer` to answer."""

    model_config = ConfigDict(extra="forbid")
    decision: Decision
    intention: str = Field(min_length=1)
    command: str = ""
    missing_evidence: list[str] = Field(default_factory=list)
    blockers: list[str] = Field(default_factory=list)
    expected_observation: str = ""
    answer: str | None = None

    @model_validator(mode="after")
    def _check(self) -> TopDecision:
        if self.decision == "browse":
            if not self.command.strip():
                raise ValueError("decision 'browse' needs a non-empty command")
            if grammar.parse_command(self.command) is None:
                raise ValueError(f"command {self.command!r} is not in the command grammar")
        if self.decision == "answer" and not (self.answer or "").strip():
            raise ValueError("decision 'answer' needs a non-empty answer")
        return self


def top_decision_schema() -> dict[str, Any]:
    """Strict JSON Schema for structured decoding (every field required, nullable answer)."""
    props = {
        "decision": {"type": "string", "enum": ["browse", "ask", "answer", "stop", "block"]},
        "intention": {"type": "string"},
        "command": {"type": "string"},
        "missing_evidence": {"type": "array", "items": {"type": "string"}},
        "blockers": {"type": "array", "items": {"type": "string"}},
        "expected_observation": {"type": "string"},
        "answer": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    }
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
        "title": "TopDecision",
    }


def _strip_fence(text: str) -> str:
    t = text.strip()
    if t.startswith("```"):
        t = t.split("\n", 1)[1] if "\n" in t else ""
        t = t.rsplit("```", 1)[0]
    return t.strip()


def parse_decision(text: str) -> TopDecision:
    """Validate one model reply; raises ValueError (incl. ValidationError) when invalid."""
    return TopDecision.model_validate(json.loads(_strip_fence(text)))


class LLMTop:
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        temperature: float = 0.0,
        structured: bool = True,
        client: ChatClient | None = None,
    ) -> None:
        self.client = client or open_client(
            base_url, model, api_key, timeout=timeout, retries=retries
        )
        self.name = f"llm:{model}"
        self.temperature = temperature
        self.structured = structured
        self.contract: IntentContract | None = None
        self.goal = ""
        self.ledger: list[EvidenceItem] = []
        self.usage = TokenUsage()
        self.last_error: str | None = None
        self._t = 0

    @classmethod
    def from_env(cls, **kw: Any) -> LLMTop:
        """PATHWISE_TOP_BASE_URL / _MODEL / _API_KEY, falling back to OPENAI_*."""
        spec = EndpointSpec.from_env("PATHWISE_TOP")
        return cls(spec.url, spec.model, spec.key(), **kw)

    def start(self, contract: IntentContract, goal: str) -> None:
        self.contract = contract
        self.goal = goal
        self.ledger = []
        self.usage = TokenUsage()
        self.last_error = None
        self._t = 0

    def step(self, observation: Observation, history: RecentHistory) -> TopState:
        self._t += 1
        if observation.access_signal is not None:
            # Deterministic gate first: an access interruption is never left to the model.
            return self._state(
                TopDecision(
                    decision="block",
                    intention="External access interruption; never bypassed.",
                    blockers=[f"external_access:{observation.access_signal.value}"],
                )
            )
        messages = [
            {"role": "system", "content": TOP_SYSTEM_PROMPT},
            {"role": "user", "content": self._user_text(observation, history)},
        ]
        error = ""
        for attempt in range(2):  # the first try and one repair retry
            try:
                reply = self.client.chat(
                    messages,
                    json_schema=top_decision_schema() if self.structured else None,
                    temperature=self.temperature,
                    max_tokens=512,
                    schema_name="top_decision",
                )
            except ChatRequestError as e:
                error = str(e)
                break
            used = usage_of(reply)
            self.usage = TokenUsage(
                prompt_tokens=self.usage.prompt_tokens + used.prompt_tokens,
                completion_tokens=self.usage.completion_tokens + used.completion_tokens,
            )
            try:
                return self._state(parse_decision(reply.text))
            except (ValueError, ValidationError) as e:
                error = _short_error(e)
                if attempt == 0:
                    messages += [
                        {"role": "assistant", "content": reply.text},
                        {
                            "role": "user",
                            "content": f"That reply is invalid: {error}. Reply again "
                            "with one JSON object that fixes it.",
                        },
                    ]
        self.last_error = error
        return self._state(
            TopDecision(
                decision="stop",
                intention="The top model gave no valid decision.",
                blockers=[f"top_invalid_output: {error}"[:300]],
            )
        )

    # -- internals -----------------------------------------------------------------------

    def _state(self, d: TopDecision) -> TopState:
        c = self.contract
        return TopState(
            intention=d.intention,
            command=d.command if d.decision == "browse" else "",
            active_constraints=[h.text for h in c.hard_constraints] if c else [],
            missing_evidence=d.missing_evidence,
            blockers=d.blockers,
            decision=d.decision,
            expected_observation=d.expected_observation,
            ledger=list(self.ledger),
            answer=d.answer if d.decision == "answer" else None,
        )

    def _user_text(self, obs: Observation, history: RecentHistory) -> str:
        c = self.contract
        lines = [f"Goal: {self.goal}"]
        if c is not None:
            lines += [f"Hard constraint: {h.text}" for h in c.hard_constraints]
            lines += [f"Evidence obligation [{o.id}]: {o.text}" for o in c.evidence_obligations]
            lines += [f"Material blocker: {b}" for b in c.material_blockers]
            lines.append(f"Persona: {c.persona.name} ({c.persona.criterion})")
            lines.append(f"Answer form: {c.answer_schema.form}")
            if c.answer_schema.fields:
                # Contract sites score the answer's fields (Eq. 4, answer gate): say which.
                lines.append(
                    "Answer with a JSON object string with the fields "
                    + ", ".join(c.answer_schema.fields)
                    + " (selection: the item's 'Item no.' as its page shows it)"
                )
            if c.location:
                lines.append(f"Location: {c.location}")
        lines.append(f"Step: {self._t}")
        lines.append(f"URL: {obs.url}  Title: {obs.title}")
        if history.actions:
            lines.append("Recent actions: " + " | ".join(a.action for a in history.actions))
        if history.failures:
            lines.append("Recent failures: " + " | ".join(history.failures))
        lines.append("Labels:")
        for el in obs.labels[:MAX_LABELS]:
            state = "" if el.checked is None else (" checked" if el.checked else " unchecked")
            value = f" value={el.value[:30]!r}" if el.value else ""
            lines.append(f"[{el.label}] {el.role}{state}{value} {' '.join(el.text.split())[:60]!r}")
        lines.append("Page text: " + obs.page_text[:MAX_PAGE_TEXT])
        return "\n".join(lines)


def _short_error(e: Exception) -> str:
    if isinstance(e, ValidationError):
        err = e.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "<root>"
        return f"{loc}: {err['msg']}"
    return str(e).splitlines()[0][:200] if str(e) else type(e).__name__
