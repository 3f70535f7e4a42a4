"""Middle interface card and user turn: WebRider Appendix H, Figure 8 and Table 43 (MidSFT mask).

One renderer serves the endpoint middle at run time and the SFT exporter at training
time, so a learned middle is trained on exactly the text it will be served.
"""

from __future__ import annotations

from agent_runtime.middle.base import MiddleInput
from agent_runtime.middle.format import PAPER, MiddleFormat, label_line

MAX_LABELS = 60

# Kept short on purpose: it is sent with every step, and a small student pays for every token.
MIDDLE_SYSTEM_PROMPT = (
    "You are the middle layer of a web agent. For the top layer's command, output one JSON "
    'Action AST {"action": A, "fallback": F} on the numbered labels. A is click{target}, '
    "type{target,text,submit}, scroll{target,direction}, search{query}, maps{query,location}, "
    "back{reason} or wait{reason,seconds}; F is a scroll, search, maps, back or wait that is "
    "safe if the target is gone. Never answer, ask or stop: the top layer decides that."
)


def middle_system_prompt(fmt: MiddleFormat = PAPER) -> str:
    """The system prompt; an echoing format names the rationale field in its action signatures."""
    if not fmt.echo_label:
        return MIDDLE_SYSTEM_PROMPT
    repeats = "label_text repeats the target label's text" + (
        " (its role if it has none)" if fmt.echo_role_if_empty else ""
    )
    return MIDDLE_SYSTEM_PROMPT.replace(
        "click{target}, type{target,", "click{label_text,target}, type{label_text,target,"
    ).replace("on the numbered labels.", f"on the numbered labels; {repeats}.")


def render_middle_user_text(inp: MiddleInput, fmt: MiddleFormat = PAPER) -> str:
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
    lines.extend(label_line(el, fmt) for el in obs.labels[:MAX_LABELS])
    return "\n".join(lines)
