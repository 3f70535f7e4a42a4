"""Per-step decoding schema: WebRider "Deterministic Guards" (Table 45) moved into decoding.

The guards already reject an action whose target is not a visible label, and the command
grammar (contracts/command.py) already says which text a `type` step enters: the
payload of `type "TEXT" into TARGET` or `select "OPTION"`, and which query a provider step
sends: `search "QUERY"`, `maps "QUERY" near "PLACE"`. A grounded schema states these for one
step, so a learned middle cannot decode an invisible target or invent text the top layer never
asked for; it still has to choose the label (and the action). A grammar command enters text
only through its payload, so `click`, `check`, `focus` or `submit` leave no `type` to decode
(a student once typed the password it had just entered into the Submit button); a command
outside the grammar leaves every quoted string of it as a choice, or the text free. The global
schema (`action_ast_decoding_schema`) stays the default; this one is opt-in per caller.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from typing import Any

from agent_runtime.middle.format import (
    ECHOED_TYPES,
    PAPER,
    MiddleFormat,
    couple_rationale,
    decoding_schema,
    parse_label_lines,
)
from contracts.command import parse_command, quoted_strings

_COMMAND_LINE = re.compile(r"^Command: (?P<command>.*)$", re.M)
PROVIDER_VERBS = frozenset({"search", "maps"})  # the Action AST kinds that send a query


@lru_cache(maxsize=1)
def _base() -> dict[str, Any]:
    return decoding_schema(PAPER)


def typed_texts(command: str) -> list[str] | None:
    """What a `type` step may enter: a grammar command's payload ([] when it has none: the
    command enters no text); outside the grammar its quoted strings; None: unconstrained."""
    parsed = parse_command(command or "")
    if parsed is not None:
        return [parsed.payload] if parsed.payload else []
    return quoted_strings(command) or None


def provider_query(command: str) -> tuple[str, str | None] | None:
    """(query, near) of a `search` / `maps` command, None for any other command."""
    parsed = parse_command(command or "")
    if parsed is None or parsed.verb not in PROVIDER_VERBS or not parsed.payload:
        return None
    return parsed.payload, parsed.near


def grounded_schema(
    command: str,
    labels: list[int],
    texts: dict[int, str] | None = None,
    *,
    echo: bool = False,
    free_text: bool = False,
) -> dict[str, Any]:
    """The decoding schema narrowed to this step's visible labels and typed text.

    With no visible labels the target-bearing actions are dropped (only scroll on the
    window, search, maps, back and wait remain); a grammar command without a payload drops
    `type`; a command outside the grammar without quoted strings leaves `type.text` free,
    because then the top layer asked for no particular text. With `echo`
    (an echoing middle format), click and type name a visible label's text, and its number
    is decoded with it (`texts` maps each visible label to its displayed text). With
    `free_text` the typed text is never narrowed: the command is a user's sentence whose values
    are not all quoted (an LMS task's dates, points and names), so only the targets are grounded.
    """
    schema = copy.deepcopy(_base())
    typed = None if free_text else typed_texts(command)
    query = provider_query(command)
    ids = sorted(set(labels))
    kept = []
    for alt in schema["properties"]["action"]["anyOf"]:
        props = alt["properties"]
        if props.get("target", {}).get("type") == "integer":
            if not ids:
                continue
            props["target"] = {"enum": ids}
        elif "target" in props:  # scroll: the window or a label
            props["target"] = {"anyOf": [{"const": "window"}] + ([{"enum": ids}] if ids else [])}
        if props["type"].get("const") == "type" and typed is not None:
            if not typed:
                continue
            props["text"] = {"enum": typed}
        if props["type"].get("const") in PROVIDER_VERBS and query is not None:
            # A served student wrote its own free-text queries (the category, a name off the
            # page) and looped between two of them; the top layer's query is the contract's.
            props["query"] = {"enum": [query[0]]}
            if "location" in props:
                props["location"] = {"enum": [query[1]]} if query[1] else {"type": "null"}
        if echo and props["type"].get("const") in ECHOED_TYPES:
            shown = texts or {}
            kept.extend(couple_rationale(alt, {i: shown.get(i, "") for i in ids}))
            continue
        kept.append(alt)
    schema["properties"]["action"]["anyOf"] = kept
    return schema


def grounded_schema_from_text(user_text: str, fmt: MiddleFormat = PAPER) -> dict[str, Any]:
    """The same schema read back from a rendered middle user turn (offline eval records).

    `render_middle_user_text` writes one `Command:` line and one label line per label in the
    format's layout; a test round-trips the two so they cannot drift apart.
    """
    m = _COMMAND_LINE.search(user_text)
    shown = parse_label_lines(user_text, fmt, echo=True)
    return grounded_schema(m.group("command") if m else "", list(shown), shown, echo=fmt.echo_label)
