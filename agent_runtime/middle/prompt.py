"""Middle interface card and user turn: WebRider Appendix H, Figure 8 and Table 43 (MidSFT mask).

One renderer serves the endpoint middle at run time and the SFT exporter at training
time, so a learned middle is trained on exactly the text it will be served.
"""

from __future__ import annotations

import json

from agent_runtime.contracts.observation import ElementLabel
from agent_runtime.middle.base import MiddleInput

MAX_LABELS = 60
MAX_LABEL_TEXT = 60

# Kept short on purpose: it is sent with every step, and a small student pays for every token.
MIDDLE_SYSTEM_PROMPT = (
    "You are the middle layer of a web agent. For the top layer's command, output one JSON "
    'Action AST {"action": A, "fallback": F} on the numbered labels. A is click{target}, '
    "type{target,text,submit}, scroll{target,direction}, search{query}, maps{query,location}, "
    "back{reason} or wait{reason,seconds}; F is a scroll, search, maps, back or wait that is "
    "safe if the target is gone. Never answer, ask or stop: the top layer decides that."
)


def _label_line(el: ElementLabel) -> str:
    text = " ".join(el.text.split())[:MAX_LABEL_TEXT]
    extra = ""
    if el.input_type:
        extra += f" type={el.input_type}"
    if el.checked is not None:
        extra += " checked" if el.checked else " unchecked"
    if el.value:
        extra += f" value={json.dumps(el.value[:30], ensure_ascii=False)}"
    # JSON quoting, the same as the command grammar's, so a quoted word in the command and
    # in a label line tokenize identically (what a small student has to match).
    return f"[{el.label}] {el.role}{extra} {json.dumps(text, ensure_ascii=False)}"


def render_middle_user_text(inp: MiddleInput) -> str:
    """The text part of the user turn (the screenshot travels as a separate image part)."""
    top = inp.top
    lines = [f"Command: {top.command or top.intention}"]
    if top.intention and top.intention != top.command:
        lines.append(f"Intention: {top.intention}")
    if inp.persona:
        lines.append(
            f"Persona: {inp.persona} ({inp.persona_criterion})"
            if inp.persona_criterion
            else f"Persona: {inp.persona}"
        )
    if inp.protected_constraints:
        lines.append("Protected constraints: " + "; ".join(inp.protected_constraints))
    obs = inp.observation
    lines.append(f"URL: {obs.url}")
    if inp.history.actions:
        lines.append("Recent actions: " + " | ".join(a.action for a in inp.history.actions))
    if inp.history.failures:
        lines.append("Recent failures: " + " | ".join(inp.history.failures))
    lines.append("Labels:")
    lines.extend(_label_line(el) for el in obs.labels[:MAX_LABELS])
    return "\n".join(lines)
