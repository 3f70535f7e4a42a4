"""Compact top-layer command grammar: WebRider "Hierarchical Controller" (top layer).

The top layer hands the middle one short command per step; the middle grounds it on the
visible labels. The grammar is small on purpose, so a rule top, an LLM top and a learned
middle all read and write the same strings:

    click   TARGET                      click "OK" button | click textbox #2 | click "Tab #2" tab
    type    "TEXT" into TARGET          type "bob" into "Username" textbox
    select  "OPTION" [in TARGET]        select "Canada" in combobox
    check   TARGET | uncheck TARGET     check "xkd2"
    focus   TARGET                      focus textbox #2
    submit  [TARGET]                    submit (the form's submit-like button)
    scroll  up|down
    wait
    search  "QUERY"                     the runtime's search provider
    maps    "QUERY" [near "PLACE"]      the runtime's maps provider (geographic tasks)
    back                                the previous page

    TARGET := ["TEXT"] [ROLE] [#N]      at least one part; #N is 1-based among matches

Quoted strings use JSON escaping, so any text (quotes, unicode) round-trips.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

GRAMMAR_HELP = """\
click TARGET | type "TEXT" into TARGET | select "OPTION" [in TARGET] | check TARGET |
uncheck TARGET | focus TARGET | submit [TARGET] | scroll up|down | wait |
search "QUERY" | maps "QUERY" [near "PLACE"] | back
TARGET := ["TEXT"] [ROLE] [#N]   (ROLE: button, link, tab, textbox, textarea, checkbox, radio,
combobox, ...; #N = the Nth match, 1-based). Examples: click "OK" button; type "bob" into
"Username" textbox; check "xkd2"; focus textbox #2; select "Canada" in combobox."""

VERBS: tuple[str, ...] = (
    "click",
    "type",
    "select",
    "check",
    "uncheck",
    "focus",
    "submit",
    "scroll",
    "wait",
    "search",
    "maps",
    "back",
)

# Roles a target may name. Most are ARIA roles the executor reports; `textarea` and
# `textinput` are tag-level refinements (a textarea and a single-line input are both
# ARIA textboxes, yet MiniWoB's click-widget tells them apart).
ROLES: tuple[str, ...] = (
    "button",
    "link",
    "tab",
    "textbox",
    "textarea",
    "textinput",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "menuitem",
    "treeitem",
    "slider",
    "heading",
    "generic",
)

_QUOTED = r'"(?:[^"\\]|\\.)*"'
_TARGET_RE = re.compile(rf"^\s*(?P<text>{_QUOTED})?\s*(?P<role>[a-z]+)?\s*(?:#(?P<nth>\d+))?\s*$")
_TYPE_RE = re.compile(rf"^(?P<payload>{_QUOTED})\s+into\s+(?P<target>.+)$")
_SELECT_RE = re.compile(rf"^(?P<payload>{_QUOTED})(?:\s+in\s+(?P<target>.+))?$")
_MAPS_RE = re.compile(rf"^(?P<payload>{_QUOTED})(?:\s+near\s+(?P<near>{_QUOTED}))?$")


@dataclass(frozen=True)
class Target:
    text: str | None = None
    role: str | None = None
    nth: int | None = None

    def render(self) -> str:
        parts = []
        if self.text is not None:
            parts.append(_q(self.text))
        if self.role:
            parts.append(self.role)
        if self.nth is not None:
            parts.append(f"#{self.nth}")
        return " ".join(parts)


@dataclass(frozen=True)
class Command:
    verb: str
    target: Target | None = None
    payload: str | None = None  # text to type, option to select
    direction: str | None = None  # scroll only
    near: str | None = None  # maps only

    def render(self) -> str:
        if self.verb == "search":
            return f"search {_q(self.payload or '')}"
        if self.verb == "maps":
            out = f"maps {_q(self.payload or '')}"
            return f"{out} near {_q(self.near)}" if self.near else out
        if self.verb == "type":
            into = self.target.render() if self.target else ""
            return f"type {_q(self.payload or '')} into {into}".strip()
        if self.verb == "select":
            out = f"select {_q(self.payload or '')}"
            return f"{out} in {self.target.render()}" if self.target else out
        if self.verb == "scroll":
            return f"scroll {self.direction or 'down'}"
        if self.target is not None:
            return f"{self.verb} {self.target.render()}"
        return self.verb

    def __str__(self) -> str:
        return self.render()


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _unq(s: str) -> str:
    return str(json.loads(s))


def quoted_strings(s: str) -> list[str]:
    """Every quoted string of a command, unescaped, in order, without repeats."""
    out: list[str] = []
    for m in re.finditer(_QUOTED, s or ""):
        try:
            text = _unq(m.group(0))
        except json.JSONDecodeError:
            continue
        if text and text not in out:
            out.append(text)
    return out


def parse_target(s: str) -> Target | None:
    m = _TARGET_RE.match(s)
    if not m or not any(m.group(g) for g in ("text", "role", "nth")):
        return None
    role = m.group("role")
    if role is not None and role not in ROLES:
        return None
    return Target(
        text=_unq(m.group("text")) if m.group("text") else None,
        role=role,
        nth=int(m.group("nth")) if m.group("nth") else None,
    )


def parse_command(s: str) -> Command | None:
    """Parse one command string; None when it is not in the grammar (callers decide)."""
    s = s.strip()
    verb, _, rest = s.partition(" ")
    rest = rest.strip()
    if verb not in VERBS:
        return None
    if verb in ("wait", "back"):
        return Command(verb) if not rest else None
    if verb == "search":
        if not re.fullmatch(_QUOTED, rest):
            return None
        q = _unq(rest)
        return Command("search", payload=q) if q.strip() else None
    if verb == "maps":
        m = _MAPS_RE.match(rest)
        if not m or not _unq(m.group("payload")).strip():
            return None
        near = _unq(m.group("near")) if m.group("near") else None
        return Command("maps", payload=_unq(m.group("payload")), near=near)
    if verb == "scroll":
        return Command("scroll", direction=rest) if rest in ("up", "down") else None
    if verb == "submit":
        if not rest:
            return Command("submit")
        t = parse_target(rest)
        return Command("submit", target=t) if t else None
    if verb == "type":
        m = _TYPE_RE.match(rest)
        if not m:
            return None
        t = parse_target(m.group("target"))
        return Command("type", target=t, payload=_unq(m.group("payload"))) if t else None
    if verb == "select":
        m = _SELECT_RE.match(rest)
        if not m:
            return None
        t = parse_target(m.group("target")) if m.group("target") else None
        if m.group("target") and t is None:
            return None
        return Command("select", target=t, payload=_unq(m.group("payload")))
    t = parse_target(rest)
    return Command(verb, target=t) if t else None


def click(text: str | None = None, role: str | None = None, nth: int | None = None) -> Command:
    return Command("click", Target(text, role, nth))


def type_into(
    payload: str, text: str | None = None, role: str | None = "textbox", nth: int | None = None
) -> Command:
    return Command("type", Target(text, role, nth), payload=payload)
