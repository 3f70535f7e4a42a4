"""Raw text to one JSON object, with the code-fence and prose repairs: WebRider Table 45."""

from __future__ import annotations

import json
import re
from typing import Any

from agent_runtime.guards.errors import Rejected
from contracts.guard_labels import RejectReason, RepairKind


class _DuplicateKey(Exception):
    """Raised inside decoding; deliberately not a ValueError so no repair path swallows it."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    dup = next((k for i, k in enumerate(keys) if k in keys[:i]), None)
    if dup is not None:
        raise _DuplicateKey(dup)
    return dict(pairs)


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates)


def undecodable(text: str) -> str | None:
    """Why `text` cannot be encoded or shown as it is (lone surrogate, control char), or None."""
    for ch in text:
        o = ord(ch)
        if 0xD800 <= o <= 0xDFFF:
            return f"lone surrogate U+{o:04X}"
        if (o < 0x20 and ch not in "\t\n\r") or 0x7F <= o < 0xA0:
            return f"control character U+{o:04X}"
    return None


# Opening fence with an optional language tag; the closing fence may be missing when the
# model was cut off by max_tokens, so the body runs to the end of the text in that case.
_FENCE = re.compile(r"```[ \t]*(?:json|JSON|json5|javascript|js)?[ \t]*\r?\n?(.*?)(?:```|\Z)", re.S)
# Bounds the object search in prose so a pathological reply cannot cost milliseconds.
MAX_BRACE_PROBES = 16
MAX_RAW_CHARS = 20_000


def _first_object(text: str) -> tuple[Any, int, int] | None:
    """First decodable JSON object in `text`: (value, start, end), or None."""
    pos = text.find("{")
    probes = 0
    while pos != -1 and probes < MAX_BRACE_PROBES:
        probes += 1
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError):
            pos = text.find("{", pos + 1)
            continue
        if isinstance(value, dict):
            return value, pos, end
        pos = text.find("{", end)
    return None


def extract_object(raw: str) -> tuple[Any, list[RepairKind]]:
    """Decode one JSON value from a raw middle output; list the repairs used to reach it.

    Raises Rejected(UNPARSEABLE) when no JSON is found or when prose holds two objects
    (choosing one would be a guess, and guesses are not listed repairs).
    """
    if not isinstance(raw, str):
        raise Rejected(RejectReason.NOT_AN_OBJECT, f"raw output is {type(raw).__name__}, not text")
    if len(raw) > MAX_RAW_CHARS:
        raise Rejected(RejectReason.UNPARSEABLE, f"raw output longer than {MAX_RAW_CHARS} chars")
    bad = undecodable(raw)
    if bad is not None:
        raise Rejected(RejectReason.UNDECODABLE_TEXT, f"raw output holds a {bad}")
    try:
        return _extract(raw)
    except _DuplicateKey as e:
        raise Rejected(
            RejectReason.DUPLICATE_KEY, f"duplicate key {str(e)[:40]!r}: ambiguous, not resolved"
        ) from None


def _extract(raw: str) -> tuple[Any, list[RepairKind]]:
    text = raw.strip()
    repairs: list[RepairKind] = []
    if not text:
        raise Rejected(RejectReason.UNPARSEABLE, "empty output")
    if "```" in text:
        m = _FENCE.search(text)
        if m is not None:
            repairs.append(RepairKind.CODE_FENCE)
            if text[: m.start()].strip() or text[m.end() :].strip():
                repairs.append(RepairKind.SURROUNDING_PROSE)
            text = m.group(1).strip()
    # Fast path: the whole text is JSON (the common, well-behaved case).
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates), repairs
    except (ValueError, RecursionError):
        pass
    found = _first_object(text)
    if found is None:
        raise Rejected(RejectReason.UNPARSEABLE, "no JSON object in output")
    value, _start, end = found
    if _first_object(text[end:]) is not None:
        raise Rejected(RejectReason.UNPARSEABLE, "more than one JSON object in output")
    if RepairKind.SURROUNDING_PROSE not in repairs:
        repairs.append(RepairKind.SURROUNDING_PROSE)
    return value, repairs
