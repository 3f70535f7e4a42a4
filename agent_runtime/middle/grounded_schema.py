"""Per-step decoding schema: WebRider "Deterministic Guards" (Table 45) moved into decoding.

The guards already reject an action whose target is not a visible label, and the command
grammar (agent_runtime/top/commands.py) already says which text a `type` step enters: the
payload of `type "TEXT" into TARGET` or `select "OPTION"`. A grounded schema states both for
one step, so a learned middle cannot decode an invisible target or invent text the top layer
never asked for; it still has to choose the label (and the action). A command without a
payload leaves every quoted string of the command as a choice. The global schema
(`action_ast_decoding_schema`) stays the default; this one is opt-in per caller.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from typing import Any

from agent_runtime.contracts.actions import action_ast_decoding_schema
from agent_runtime.top.commands import parse_command, quoted_strings

_COMMAND_LINE = re.compile(r"^Command: (?P<command>.*)$", re.M)
_LABEL_LINE = re.compile(r"^\[(?P<label>\d+)\] ", re.M)


@lru_cache(maxsize=1)
def _base() -> dict[str, Any]:
    return action_ast_decoding_schema()


def typed_texts(command: str) -> list[str]:
    """What a `type` step may enter: the command's payload, else its quoted strings."""
    parsed = parse_command(command or "")
    if parsed is not None and parsed.payload:
        return [parsed.payload]
    return quoted_strings(command)


def grounded_schema(command: str, labels: list[int]) -> dict[str, Any]:
    """The decoding schema narrowed to this step's visible labels and typed text.

    With no visible labels the target-bearing actions are dropped (only scroll on the
    window, search, maps, back and wait remain); a command without quoted strings leaves
    `type.text` free, because then the top layer asked for no particular text.
    """
    schema = copy.deepcopy(_base())
    texts = typed_texts(command)
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
        if props["type"].get("const") == "type" and texts:
            props["text"] = {"enum": texts}
        kept.append(alt)
    schema["properties"]["action"]["anyOf"] = kept
    return schema


def grounded_schema_from_text(user_text: str) -> dict[str, Any]:
    """The same schema read back from a rendered middle user turn (offline eval records).

    `render_middle_user_text` writes one `Command:` line and one `[N] ...` line per label;
    a test round-trips the two so they cannot drift apart.
    """
    m = _COMMAND_LINE.search(user_text)
    labels = [int(x.group("label")) for x in _LABEL_LINE.finditer(user_text)]
    return grounded_schema(m.group("command") if m else "", labels)
