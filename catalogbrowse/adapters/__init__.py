"""Platform adapters, chosen from the page itself: KnowPlan, "Deterministic-first parsing"."""

from __future__ import annotations

import json

from catalogbrowse.adapters import api, html, pdf
from catalogbrowse.adapters.base import PageYield
from envs.catalog.text import UnreadablePage, kind_of, page_text


def read_page(url: str, status: int, body: bytes, content_type: str) -> PageYield:
    """The adapter for this page, picked from its bytes (PDF magic, JSON, record markup, DOM).

    A 404, a truncated or mislabelled page yields a PageYield with `failed` set, never raises.
    """
    if status != 200:
        return PageYield("none", url, "", failed=f"HTTP {status}")
    kind = kind_of(body, content_type)
    if url.lower().endswith(".pdf") and kind != "pdf":
        return PageYield("none", url, "", failed="a .pdf URL that is not a PDF")
    try:
        text = page_text(body, content_type)
    except UnreadablePage as exc:
        return PageYield("none", url, "", failed=str(exc))
    try:
        if kind == "pdf":
            return pdf.adapt(url, text)
        if kind == "json":
            return api.adapt(url, text)
        if kind == "html":
            raw = body.decode("utf-8")
            if 'class="courseblock"' in raw:
                return html.records(url, text, raw)
            return html.dom(url, text, raw)
    except (json.JSONDecodeError, ValueError) as exc:
        return PageYield("none", url, text, failed=f"unparseable {kind}: {str(exc)[:120]}")
    return PageYield("none", url, text, failed=f"no adapter for {content_type or 'unknown type'}")
