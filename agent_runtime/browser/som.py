"""Set-of-mark labels and the labeled screenshot: WebRider Appendix H, Table 42 (executor row)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from contracts.observation import MAX_LABEL, BBox, ElementLabel
from contracts.secrets import MASK, SECRET_FIELD

LABEL_ATTR = "data-pw-label"
PAGE_TEXT_CHARS = 2000


@cache
def som_script() -> str:
    """The labeling function, shipped as package data so it can be read and tested as JS."""
    return resources.files("agent_runtime.browser").joinpath("som.js").read_text("utf-8")


@dataclass(frozen=True)
class PageSnapshot:
    """What one labeling round trip returns."""

    labels: list[ElementLabel]
    xpaths: dict[int, str]  # kept beside the labels for interaction events (OdoBot xpaths)
    page_text: str
    title: str
    url: str


def label_page(
    page: Any, max_text: int = PAGE_TEXT_CHARS, secret_labels: Sequence[str] = ()
) -> PageSnapshot:
    """Label visible interactive elements in DOM order in ONE page.evaluate round trip.

    Each labeled element gets `data-pw-label="<n>"`, so execution finds it with a CSS
    selector instead of re-running any heuristic; labels from an earlier call are cleared
    first, so a stale label can never resolve to a different element. A secret field's value
    comes back as `MASK` (contracts/secrets.py): the page keeps it.
    """
    args = {
        "maxText": max_text,
        "maxLabel": MAX_LABEL,
        "secretField": SECRET_FIELD.pattern,
        "secretLabels": list(secret_labels),
        "mask": MASK,
    }
    raw = page.evaluate(som_script(), args)
    labels = [
        ElementLabel(
            label=d["label"],
            role=d["role"],
            tag=d["tag"],
            text=d["text"],
            bbox=BBox(**d["bbox"]),
            input_type=d["input_type"],
            checked=d["checked"],
            value=d["value"],
        )
        for d in raw["labels"]
    ]
    xpaths = {d["label"]: d["xpath"] for d in raw["labels"]}
    return PageSnapshot(labels, xpaths, raw["text"], raw["title"], raw["url"])


def selector_for(label: int) -> str:
    return f'[{LABEL_ATTR}="{int(label)}"]'


_COLORS = ((230, 25, 75), (0, 130, 200), (60, 160, 60), (145, 30, 180), (245, 130, 48))


@cache
def _font() -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSans-Bold.ttf", 12)
    except OSError:
        return ImageFont.load_default()


def draw_labels(png: bytes, labels: list[ElementLabel]) -> bytes:
    """Draw each label's box and integer onto the PNG in Python.

    Drawing here instead of injecting an overlay into the page leaves the DOM untouched
    (no extra mutations for the page's own observers) and saves two round trips; the
    PNG is re-encoded at compress_level=1 because zlib effort dominates the cost.
    """
    from PIL import Image, ImageDraw

    img = Image.open(io.BytesIO(png)).convert("RGB")
    draw = ImageDraw.Draw(img)
    font = _font()
    for el in labels:
        b = el.bbox
        color = _COLORS[el.label % len(_COLORS)]
        x0, y0 = max(b.x, 0), max(b.y, 0)
        draw.rectangle([x0, y0, b.x + b.width, b.y + b.height], outline=color, width=2)
        tag = str(el.label)
        tw = draw.textlength(tag, font=font)
        # The tag sits just inside the box's top-left corner so it stays on-screen.
        draw.rectangle([x0, y0, x0 + tw + 4, y0 + 14], fill=color)
        draw.text((x0 + 2, y0 + 1), tag, fill=(255, 255, 255), font=font)
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=1)
    return out.getvalue()
