"""What an adapter reads off one page: KnowPlan, "Deterministic-first parsing" (platform adapters).

Every fact carries its span in the page text (envs.catalog.text.page_text), so provenance is
the page's URL plus offsets that the verifier can check against the snapshot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

COURSE_ID = re.compile(r"\b([A-Z]{2,5}) (\d{3}[A-Z]?)\b")
SECTION_WORDS = re.compile(
    r"\b(courses?|programs?|majors?|minors?|degrees?|general.education|core|curriculum|bulletin|"
    r"catalog|departments?|subjects?|requirements?)\b",
    re.I,
)
ARCHIVE_WORDS = re.compile(r"\b(archived?|archives|previous catalogs?)\b", re.I)
SUBJECT_ANCHOR = re.compile(r"\(([A-Z]{2,5})\)$")
PROGRAM_ANCHOR = re.compile(r"\b(Major|Minor|Concentration|Certificate)$")
OLD_YEAR = re.compile(r"(?<!\d)(19\d\d|20[01]\d|202[0-4])(?!\d)")


@dataclass(frozen=True)
class Fact:
    value: str
    start: int
    end: int


@dataclass
class Link:
    url: str
    text: str
    role: str = "other"  # section | cursor | entity | archive | other
    entity: str | None = None  # "course:CS 101" / "program:slug" for entity links


@dataclass
class CourseRec:
    id: Fact
    title: Fact | None = None
    units: Fact | None = None
    description: Fact | None = None
    prereq: Fact | None = None
    complete: bool = False  # the page publishes the whole record (no prerequisite = none)
    cross_listings: list[str] = field(default_factory=list)


@dataclass
class ProgramRec:
    name: Fact
    kind: str = "major"
    groups: list[tuple[str, Fact]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return "-".join(self.name.value.lower().split())


@dataclass
class GERec:
    id: str
    name: Fact
    rule: Fact
    courses: list[str] = field(default_factory=list)
    min_courses: int = 1


@dataclass
class PageYield:
    adapter: str
    url: str
    text: str
    official: bool = True
    links: list[Link] = field(default_factory=list)
    courses: list[CourseRec] = field(default_factory=list)
    programs: list[ProgramRec] = field(default_factory=list)
    ge: list[GERec] = field(default_factory=list)
    entries: list[str] = field(default_factory=list)  # entity keys this index page lists
    declared: dict[str, int] = field(default_factory=dict)  # "subjects" / "courses" / "pages"
    failed: str | None = None  # why the page yielded nothing (404, unreadable)


def resolve(base: str, href: str) -> str | None:
    """Absolute path (+ query) on the same site, fragment dropped; None for other sites."""
    if not href or href.startswith(("mailto:", "javascript:", "#")):
        return None
    full = urljoin("http://snapshot" + base, href)
    parts = urlsplit(full)
    if parts.netloc != "snapshot":
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def classify(url: str, text: str, here: str) -> Link:
    """The role of a link, from its anchor text and URL alone."""
    t = " ".join(text.split())
    path = url.split("?")[0]  # a year in a query value (coid=2005) is an id, not a catalog year
    if ARCHIVE_WORDS.search(t) or ARCHIVE_WORDS.search(path) or OLD_YEAR.search(t + " " + path):
        return Link(url, t, "archive")
    m = COURSE_ID.match(t)
    if m:
        return Link(url, t, "entity", f"course:{m.group(0)}")
    m = SUBJECT_ANCHOR.search(t)
    if m:
        return Link(url, t, "section", f"subject:{m.group(1)}")
    if PROGRAM_ANCHOR.search(t):
        return Link(url, t, "entity", "program:" + "-".join(t.lower().split()))
    here_base, url_base = here.split("?")[0], url.split("?")[0]
    if re.fullmatch(r"\d{1,3}|next|next page|›|»", t, re.I) and here_base == url_base:
        return Link(url, t, "cursor")
    if here_base == url_base and "?" in url and re.search(r"(page|cursor)=", url):
        return Link(url, t, "cursor")
    if SECTION_WORDS.search(t) or url.lower().endswith(".pdf"):
        return Link(url, t, "section")
    return Link(url, t, "other")


def find(text: str, needle: str, start: int = 0) -> Fact | None:
    at = text.find(needle, start)
    if at < 0:
        return None
    return Fact(needle, at, at + len(needle))


def counts(text: str, count_text: str) -> dict[str, int]:
    """Declared sizes: "N subjects / departments / courses / programs" where the page states its
    own size (`count_text`), and "Page k of N" anywhere."""
    out: dict[str, int] = {}
    for n, what in re.findall(r"\b(\d+) (subjects|departments|courses|programs)\b", count_text):
        out["subjects" if what == "departments" else what] = int(n)
    m = re.search(r"Page (\d+) of (\d+)", text)
    if m:
        out["pages"] = int(m.group(2))
    return out
