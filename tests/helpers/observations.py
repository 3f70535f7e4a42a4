"""Crafted observations for the runtime tests: labelled elements and the page that holds them."""

from __future__ import annotations

from contracts import BBox, ElementLabel, Observation


def el(
    label: int,
    role: str,
    text: str = "",
    *,
    tag: str = "",
    input_type: str | None = None,
    checked: bool | None = None,
    value: str | None = None,
) -> ElementLabel:
    return ElementLabel(
        label=label,
        role=role,
        tag=tag
        or {
            "button": "button",
            "link": "a",
            "textbox": "input",
            "checkbox": "input",
            "radio": "input",
            "combobox": "select",
            "tab": "li",
        }.get(role, "span"),
        text=text,
        bbox=BBox(x=10, y=10 + 20 * label, width=50, height=18),
        input_type=input_type,
        checked=checked,
        value=value,
    )


def obs(
    *labels: ElementLabel, page_text: str = "", url: str = "http://127.0.0.1/t.html"
) -> Observation:
    return Observation(url=url, labels=list(labels), page_text=page_text).with_state_hash()
