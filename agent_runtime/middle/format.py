"""The middle's interface format: how label lines are written and what the answer holds.

WebRider's middle reads numbered labels and answers one Action AST (Appendix H, Figure 8,
Table 45). Two choices inside that contract are left to the format, because a small pretrained
student learns them at very different speeds (an in-context label-lookup probe on SmolLM2-135M:
100% held-out after 20 LoRA steps with both, 12-30% after 40-80 steps with neither; README,
"The demo student"):

- `labels`: `number_first` writes `[3] link "word"`; `text_first` writes `link "word" [3]`, so
  the number follows the text it belongs to, the order in which a pretrained model copies.
- `echo_label`: the answer names the target's displayed text before its number,
  `{"type": "click", "label_text": "word", "target": 3}`. The field is a rationale in the model's
  output only: the guard compiler drops it, so the executed action, the SFT target's post-guard
  Action AST and the offline metrics are exactly the paper's.
- `echo_role_if_empty`: an element without text (a textbox, a combobox) is echoed by its role,
  the word the top layer's command names it by (`type "x" into textbox`), instead of "": an
  empty echo tells no element from another and gave a small student a shortcut that it took for
  buttons too (live, click-button 6/10 with it; docs/demo.md).

`paper` (number first, no echo) is the default everywhere; a dataset records its format in its
manifest and every consumer (training, the endpoint middle, offline and live evals) reads it.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from contracts.actions import RATIONALE_KEY, ActionAST, action_ast_decoding_schema
from contracts.observation import ElementLabel, Observation

MAX_LABEL_TEXT = 60
# Actions whose integer target is one visible element: the ones whose answer echoes its text.
ECHOED_TYPES = frozenset({"click", "type"})

_JSON_STR = re.compile(r'"(?:[^"\\]|\\.)*"')
_LINE = {
    "number_first": re.compile(r"^\[(?P<label>\d+)\] (?P<rest>.*)$", re.M),
    "text_first": re.compile(r"^(?P<rest>.*) \[(?P<label>\d+)\]$", re.M),
}


class MiddleFormat(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = "paper"
    labels: Literal["number_first", "text_first"] = "number_first"
    echo_label: bool = False
    # False in manifests written before the field existed: their "" echoes stay as trained.
    echo_role_if_empty: bool = False


FORMATS: dict[str, MiddleFormat] = {
    "paper": MiddleFormat(),
    "text-first": MiddleFormat(name="text-first", labels="text_first"),
    "echo": MiddleFormat(
        name="echo", labels="text_first", echo_label=True, echo_role_if_empty=True
    ),
}
PAPER = FORMATS["paper"]


def get_format(name: str | MiddleFormat | None) -> MiddleFormat:
    if name is None:
        return PAPER
    if isinstance(name, MiddleFormat):
        return name
    if name not in FORMATS:
        raise ValueError(f"unknown middle format {name!r}; known: {', '.join(FORMATS)}")
    return FORMATS[name]


def format_from_manifest(manifest: dict[str, Any] | None) -> MiddleFormat:
    """A dataset's format (datasets written before formats existed are `paper`)."""
    spec = (manifest or {}).get("middle_format")
    return PAPER if spec is None else MiddleFormat.model_validate(spec)


def display_text(el: ElementLabel) -> str:
    """The element's text exactly as its label line shows it (whitespace folded, bounded)."""
    return " ".join(el.text.split())[:MAX_LABEL_TEXT]


def _echo_name(text: str, role: str, fmt: MiddleFormat) -> str:
    return text if text or not fmt.echo_role_if_empty else role


def echo_text(el: ElementLabel, fmt: MiddleFormat) -> str:
    """What an echoing answer names this element by: its displayed text, or its role."""
    return _echo_name(display_text(el), el.role, fmt)


def label_line(el: ElementLabel, fmt: MiddleFormat = PAPER) -> str:
    extra = ""
    if el.input_type:
        extra += f" type={el.input_type}"
    if el.checked is not None:
        extra += " checked" if el.checked else " unchecked"
    if el.value:
        extra += f" value={json.dumps(el.value[:30], ensure_ascii=False)}"
    # JSON quoting, the same as the command grammar's, so a quoted word in the command and in a
    # label line tokenize identically (what a student has to match).
    text = json.dumps(display_text(el), ensure_ascii=False)
    if fmt.labels == "text_first":
        return f"{el.role}{extra} {text} [{el.label}]"
    return f"[{el.label}] {el.role}{extra} {text}"


def parse_label_lines(
    user_text: str, fmt: MiddleFormat = PAPER, *, echo: bool = False
) -> dict[int, str]:
    """Label number -> displayed text, read back from a rendered user turn; with `echo`, the
    name an echoing answer uses instead (`echo_text`)."""
    out: dict[int, str] = {}
    for m in _LINE[fmt.labels].finditer(user_text):
        rest = m.group("rest")
        # The displayed text is the line's last JSON string (a value=... comes before it).
        strings = _JSON_STR.findall(rest)
        text = json.loads(strings[-1]) if strings else ""
        if echo:
            text = _echo_name(text, rest.split(" ", 1)[0], fmt)  # the line opens with the role
        out[int(m.group("label"))] = text
    return out


def render_answer(ast: ActionAST, observation: Observation, fmt: MiddleFormat = PAPER) -> str:
    """The assistant text for a post-guard action: the AST itself, or with the echoed text."""
    if not fmt.echo_label:
        return ast.to_json()
    data = json.loads(ast.to_json())
    act = data["action"]
    if act["type"] in ECHOED_TYPES:
        el = observation.label(act["target"])
        text = echo_text(el, fmt) if el is not None else ""
        data["action"] = {"type": act["type"], RATIONALE_KEY: text} | {
            k: v for k, v in act.items() if k != "type"
        }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _with_rationale(alt: dict[str, Any], text_schema: dict[str, Any]) -> dict[str, Any]:
    """`alt` with the rationale property placed right after `type` (decoding order)."""
    props = alt["properties"]
    ordered = {"type": props["type"], RATIONALE_KEY: text_schema} | {
        k: v for k, v in props.items() if k != "type"
    }
    return {**alt, "properties": ordered, "required": list(ordered)}


def decoding_schema(fmt: MiddleFormat = PAPER) -> dict[str, Any]:
    """The global Action AST decoding schema in this format (the paper's, or with the echo)."""
    schema = action_ast_decoding_schema()
    if not fmt.echo_label:
        return schema
    text = {"type": "string", "maxLength": MAX_LABEL_TEXT}
    action = schema["properties"]["action"]
    action["anyOf"] = [
        _with_rationale(alt, text) if _alt_type(alt) in ECHOED_TYPES else alt
        for alt in action["anyOf"]
    ]
    return schema


def couple_rationale(alt: dict[str, Any], texts: dict[int, str]) -> list[dict[str, Any]]:
    """One alternative per visible element: the echoed text and the target decoded together,
    so the number a student writes is the one of the text it named (grounded schema only)."""
    out = []
    for label, text in sorted(texts.items()):
        coupled = _with_rationale(alt, {"const": text})
        coupled["properties"]["target"] = {"const": label}
        out.append(coupled)
    return out


def _alt_type(alt: dict[str, Any]) -> str | None:
    return alt["properties"]["type"].get("const")


def strip_rationale(obj: Any) -> Any:
    """An output object with the echoed text removed (a bare action or the wrapper)."""
    if not isinstance(obj, dict):
        return obj
    act = obj.get("action")
    if isinstance(act, dict) and RATIONALE_KEY in act:
        return {**obj, "action": {k: v for k, v in act.items() if k != RATIONALE_KEY}}
    if RATIONALE_KEY in obj:
        return {k: v for k, v in obj.items() if k != RATIONALE_KEY}
    return obj
