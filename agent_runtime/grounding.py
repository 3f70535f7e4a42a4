"""Text-match grounding of a top command: WebRider Appendix H, Table 46 ("ambiguous target").

Scores are normalized exact > case-insensitive exact > prefix > whole-word containment >
token overlap, times a role weight, so the same command resolves identically for the
heuristic middle and for the rule top's "is the target visible / already done" checks.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from contracts.command import Command, Target
from contracts.observation import ElementLabel, Observation

# Role preferences per verb when the command names no role: `type` needs a field,
# `check` a checkbox or radio, `click` prefers what is made to be clicked.
VERB_ROLE_WEIGHTS: dict[str, dict[str, float]] = {
    "click": {
        "button": 1.0,
        "link": 1.0,
        "tab": 1.0,
        "menuitem": 1.0,
        "treeitem": 1.0,
        "option": 0.95,
        "checkbox": 0.9,
        "radio": 0.9,
        "switch": 0.9,
        "generic": 0.85,
        "textbox": 0.7,
        "combobox": 0.7,
        "listbox": 0.7,
        "slider": 0.6,
        "*": 0.6,
    },
    "focus": {"textbox": 1.0, "combobox": 0.9, "searchbox": 1.0, "*": 0.5},
    "type": {"textbox": 1.0, "searchbox": 1.0, "combobox": 0.95, "listbox": 0.9, "spinbutton": 0.9},
    "select": {
        "combobox": 1.0,
        "listbox": 1.0,
        "option": 0.95,
        "radio": 0.95,
        "checkbox": 0.9,
        "menuitem": 0.9,
        "*": 0.7,
    },
    "check": {"checkbox": 1.0, "radio": 1.0, "switch": 1.0, "menuitemcheckbox": 1.0},
    "uncheck": {"checkbox": 1.0, "radio": 1.0, "switch": 1.0, "menuitemcheckbox": 1.0},
    "submit": {"button": 1.0},
}

SUBMIT_WORDS: tuple[str, ...] = (
    "Submit",
    "Login",
    "Log in",
    "Sign in",
    "Search",
    "OK",
    "Done",
    "Send",
    "Next",
    "Go",
    "Continue",
    "Save",
)


def normalize(s: str) -> str:
    """NFKC + collapsed whitespace; case is kept because MiniWoB tells "Ok" from "ok"."""
    return " ".join(unicodedata.normalize("NFKC", s).split())


_WORD = re.compile(r"\w+", re.UNICODE)


def text_score(query: str, text: str) -> float:
    q, t = normalize(query), normalize(text)
    if not q or not t:
        return 0.0
    if q == t:
        return 1.0
    qc, tc = q.casefold(), t.casefold()
    if qc == tc:
        return 0.95
    if tc.startswith(qc) or qc.startswith(tc):
        return 0.8
    if re.search(rf"(?<!\w){re.escape(qc)}(?!\w)", tc):
        return 0.7
    qt, tt = set(_WORD.findall(qc)), set(_WORD.findall(tc))
    if not qt or not tt:
        return 0.0
    return 0.6 * len(qt & tt) / len(qt | tt)


def role_weight(el: ElementLabel, role: str | None, verb: str) -> float:
    """How well `el` fits the named role (or, with no role, the verb's preferences)."""
    if role is None:
        weights = VERB_ROLE_WEIGHTS.get(verb, {"*": 1.0})
        return weights.get(el.role, weights.get("*", 0.0))
    if role == "textarea":
        return 1.0 if el.tag == "textarea" else 0.0
    if role == "textinput":
        return 1.0 if el.tag == "input" and el.role == "textbox" else 0.0
    if role == "textbox":
        return 1.0 if el.role in ("textbox", "searchbox") else 0.0
    if el.role == role or el.tag == role:
        return 1.0
    # Pages style spans and list items as links/tabs with a pointer cursor; the executor
    # reports those as generic, so they stay eligible at a lower weight.
    if role in ("link", "treeitem", "heading", "menuitem") and el.role == "generic":
        return 0.85
    if role == "link" and el.tag == "a":
        return 0.95
    if role == "tab" and el.tag == "a":
        return 0.9
    if role == "button" and el.tag == "input" and el.input_type in ("button", "submit", "reset"):
        return 1.0
    if role == "combobox" and el.role == "listbox":
        return 0.9
    return 0.0


def _field_score(query: str, el: ElementLabel) -> float:
    # A field's hint may name its label text ("Username") or its kind ("password").
    s = text_score(query, el.text)
    if el.input_type and normalize(query).casefold() == el.input_type:
        s = max(s, 0.9)
    return s


@dataclass
class Grounding:
    element: ElementLabel | None
    score: float
    candidates: list[tuple[ElementLabel, float]] = field(default_factory=list)


def ground_target(
    target: Target | None, verb: str, obs: Observation, *, min_score: float = 0.3
) -> Grounding:
    """Resolve a command target to one visible label, or none with score 0."""
    role = target.role if target else None
    cands = [(el, w) for el in obs.labels if (w := role_weight(el, role, verb)) > 0]
    text = target.text if target else None
    nth = target.nth if target else None
    if text is not None:
        scorer = _field_score if verb in ("type", "focus") else (lambda q, e: text_score(q, e.text))
        scored = [(el, s * w) for el, w in cands if (s := scorer(text, el)) > 0]
        scored = [(el, s) for el, s in scored if s >= min_score]
        if nth is not None:
            # "#N" picks the Nth equally good match in document order; with no text match
            # it falls back to the Nth element of the role, at a lower confidence.
            if scored:
                best = max(s for _, s in scored)
                tier = [(el, s) for el, s in scored if s >= best - 1e-9]
                if len(tier) >= nth:
                    el, s = tier[nth - 1]
                    return Grounding(el, s, scored)
            if len(cands) >= nth:
                el, w = cands[nth - 1]
                return Grounding(el, 0.5 * w, scored)
            return Grounding(None, 0.0, scored)
        if not scored:
            return Grounding(None, 0.0, [])
        best_el, best_s = max(scored, key=lambda p: p[1])  # first max = document order
        return Grounding(best_el, best_s, scored)
    if not cands:
        return Grounding(None, 0.0, [])
    if nth is not None:
        if len(cands) >= nth:
            el, w = cands[nth - 1]
            return Grounding(el, w, cands)
        return Grounding(None, 0.0, cands)
    best_el, best_w = max(cands, key=lambda p: p[1])
    return Grounding(best_el, best_w, cands)


def ground_submit(obs: Observation) -> Grounding:
    """The form's submit-like button: first submit word in priority order, else the last button."""
    buttons = [el for el in obs.labels if role_weight(el, "button", "submit") > 0]
    # Some forms submit from a styled div (cursor:pointer), which the executor calls generic.
    generic = [el for el in obs.labels if el.role == "generic"]
    for pool, score in ((buttons, 1.0), (generic, 0.85)):
        for word in SUBMIT_WORDS:
            hits = [el for el in pool if text_score(word, el.text.rstrip("!")) >= 0.95]
            if hits:
                return Grounding(hits[-1], score, [(el, score) for el in hits])
    if buttons:
        return Grounding(buttons[-1], 0.5, [(el, 0.5) for el in buttons])
    return Grounding(None, 0.0, [])


def ground(cmd: Command, obs: Observation) -> Grounding:
    if cmd.verb == "submit" and cmd.target is None:
        return ground_submit(obs)
    if cmd.verb == "select" and cmd.target is None:
        # No field named: a dropdown if there is one, else the option itself (radio, item).
        g = ground_target(Target(role="combobox"), "select", obs)
        if g.element is not None:
            return g
        return ground_target(Target(text=cmd.payload or ""), "select", obs)
    return ground_target(cmd.target, cmd.verb, obs)
