"""The text of a snapshot page that provenance offsets index: KnowPlan, Proposition 1 (in-bounds).

One function for the generator's gold, the agent's adapters and the verifier: HTML is the body's
text nodes concatenated in document order (selectolax, no separator), JSON is the decoded body,
PDF is pypdf's text of each page joined by a form feed. A page that cannot be read has no text.
"""

from __future__ import annotations

import io


class UnreadablePage(ValueError):
    """The bytes do not decode as the kind of page they claim to be."""


def kind_of(body: bytes, content_type: str) -> str:
    """json | pdf | html | text, from the bytes first and the declared type second."""
    head = body[:1024].lstrip()
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head[:1] in (b"{", b"[") and "json" in content_type:
        return "json"
    if b"<html" in head.lower() or b"<!doctype html" in head.lower() or "html" in content_type:
        return "html"
    return "text"


def page_text(body: bytes, content_type: str) -> str:
    kind = kind_of(body, content_type)
    if kind == "pdf":
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError

        try:
            reader = PdfReader(io.BytesIO(body))
            return "\f".join(pg.extract_text() or "" for pg in reader.pages)
        except (PdfReadError, ValueError, KeyError, OSError) as exc:
            raise UnreadablePage(f"not a readable PDF: {exc}") from None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadablePage(f"not UTF-8: {exc}") from None
    if kind == "html":
        from selectolax.lexbor import LexborHTMLParser

        tree = LexborHTMLParser(text)
        node = tree.body or tree.root
        return node.text(deep=True, separator="", strip=False) if node is not None else ""
    return text
