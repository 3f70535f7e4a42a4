"""Explicit alias tables for the Action AST repairs: WebRider Table 45 and Figure 9.

Only names listed here are ever rewritten; anything else is rejected, so the set of
repairs the compiler may apply is exactly what this file (and docs/guards.md) says.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

# alias -> (canonical type, fields the alias implies). Figure 9 templates use the
# google_* / go_back spellings; the rest are names chat models commonly emit.
TYPE_ALIASES: MappingProxyType[str, tuple[str, dict[str, Any]]] = MappingProxyType(
    {
        "google_search": ("search", {}),
        "web_search": ("search", {}),
        "search_web": ("search", {}),
        "search_google": ("search", {}),
        "google_maps": ("maps", {}),
        "maps_search": ("maps", {}),
        "map_search": ("maps", {}),
        "search_maps": ("maps", {}),
        "go_back": ("back", {}),
        "navigate_back": ("back", {}),
        "browser_back": ("back", {}),
        "history_back": ("back", {}),
        "input": ("type", {}),
        "input_text": ("type", {}),
        "type_text": ("type", {}),
        "enter_text": ("type", {}),
        "fill": ("type", {}),
        "fill_text": ("type", {}),
        "press": ("click", {}),
        "tap": ("click", {}),
        "click_element": ("click", {}),
        "left_click": ("click", {}),
        "scroll_down": ("scroll", {"direction": "down"}),
        "scroll_up": ("scroll", {"direction": "up"}),
        "page_down": ("scroll", {"direction": "down"}),
        "page_up": ("scroll", {"direction": "up"}),
        "sleep": ("wait", {}),
        "pause": ("wait", {}),
    }
)

# Terminal decisions belong to the top layer (Table 44); the middle grammar rejects them.
TERMINAL_NAMES: frozenset[str] = frozenset(
    {
        "answer",
        "ask",
        "stop",
        "blocked",
        "block",
        "finish",
        "finished",
        "done",
        "final_answer",
        "respond",
        "reply",
        "complete",
        "incomplete",
        "terminate",
        "exit",
        "end",
        "ask_user",
        "give_up",
    }
)

# Keys that carry the action type when `type` itself is absent.
TYPE_KEY_ALIASES: tuple[str, ...] = ("action_type", "name", "action")

# canonical field -> aliases. Applied only for fields the action type actually has,
# so e.g. `value` becomes `text` on a type action but is an invalid field on a click.
FIELD_ALIASES: MappingProxyType[str, tuple[str, ...]] = MappingProxyType(
    {
        "target": ("element", "label", "id", "index", "element_id", "label_id"),
        "text": ("value", "content", "input"),
        "query": ("q", "search_query"),
        "location": ("near", "region", "city"),
        "direction": ("dir",),
        "seconds": ("duration", "secs"),
        "submit": ("press_enter", "enter"),
    }
)


def canonical_type_name(name: str) -> str:
    """Case- and separator-folded type name ("Go-Back" -> "go_back")."""
    return name.strip().lower().replace("-", "_").replace(" ", "_")
