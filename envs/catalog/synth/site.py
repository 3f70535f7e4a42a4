"""A rendered site: pages, the links between them, evidence and index pages (for masking)."""

from __future__ import annotations

import html
from dataclasses import dataclass, field


@dataclass
class Page:
    body: bytes
    content_type: str
    status: int = 200


@dataclass
class Site:
    """What a family renderer builds. `hidden` urls are masked: no link to them is emitted, but
    the pages themselves stay in the snapshot (KnowPlan, "Masked-source recovery")."""

    root: str
    hidden: set[str] = field(default_factory=set)
    pages: dict[str, Page] = field(default_factory=dict)
    links: dict[str, list[str]] = field(default_factory=dict)
    evidence: dict[str, set[str]] = field(default_factory=dict)  # "course:CS 101" -> urls
    index_pages: dict[str, str] = field(default_factory=dict)  # url -> stratum
    _src: str = ""

    def page(self, url: str) -> Site:
        """Start collecting links for `url` (the page about to be added)."""
        self._src = url
        self.links.setdefault(url, [])
        return self

    def edge(self, dst: str) -> bool:
        """Record a link from the current page; False when dst is masked (omit the link)."""
        if dst in self.hidden:
            return False
        self.links[self._src].append(dst)
        return True

    def a(self, dst: str, text: str, cls: str = "") -> str:
        if not self.edge(dst):
            return ""
        c = f' class="{cls}"' if cls else ""
        return f'<a href="{html.escape(dst)}"{c}>{html.escape(text)}</a>'

    def html(self, url: str, title: str, body: str, index: str | None = None) -> None:
        doc = (
            '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title></head>\n<body>\n{body}\n</body></html>\n"
        )
        self.pages[url] = Page(doc.encode(), "text/html; charset=utf-8")
        if index:
            self.index_pages[url] = index

    def add(self, url: str, body: bytes, ctype: str, index: str | None = None) -> None:
        self.pages[url] = Page(body, ctype)
        if index:
            self.index_pages[url] = index

    def cite(self, key: str, url: str) -> None:
        self.evidence.setdefault(key, set()).add(url)

    def reachable(self) -> set[str]:
        seen, todo = {self.root}, [self.root]
        while todo:
            for dst in self.links.get(todo.pop(), []):
                if dst not in seen:
                    seen.add(dst)
                    todo.append(dst)
        return seen


def esc(text: str) -> str:
    return html.escape(text, quote=False)
