"""Plan steps whose command the page supplies, not the utterance (MiniWoB++ top layer).

A table's value, the nth word of a text, an equation's answer, a random section header, the
suggestions of an autocomplete: the utterance names what to do, only the page shows the value.
"""

from __future__ import annotations

import re

from agent_runtime.top.miniwob_plan import (
    SKIP,
    CommandFn,
    Plan,
    PlanStep,
    UnsupportedUtterance,
    submit_step,
)
from contracts.command import Command, click, type_into
from contracts.observation import Observation

ORDINALS = {"1st": 1, "2nd": 2, "3rd": 3}


def read_table_value(key: str) -> CommandFn:
    def fn(obs: Observation) -> Command | None:
        for line in obs.page_text.splitlines():
            cells = [c.strip() for c in line.split("\t")]
            if len(cells) >= 2 and cells[0] == key:
                return type_into(cells[1], role="textbox")
        return None

    return fn


def _table(obs: Observation) -> dict[str, str]:
    out = {}
    for line in obs.page_text.splitlines():
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) >= 2 and cells[0]:
            out[cells[0]] = cells[1]
    return out


def table_field(nth: int) -> CommandFn:
    # read-table-2: each field's label names a table key ("Color:"); type that key's value.
    def fn(obs: Observation) -> Command | None:
        fields = [el for el in obs.labels if el.role == "textbox"]
        if len(fields) < nth:
            return None
        label = " ".join(fields[nth - 1].text.split())
        value = _table(obs).get(label.rstrip(":").strip())
        return type_into(value, label, nth=nth) if value else None

    return fn


def nth_word(pos: str) -> CommandFn:
    n = int(re.match(r"\d+", pos).group()) if pos[0].isdigit() else ORDINALS[pos]  # type: ignore[union-attr]

    def fn(obs: Observation) -> Command | None:
        lines = [ln.strip() for ln in obs.page_text.splitlines() if ln.strip()]
        for i, line in enumerate(lines[:-1]):
            if "word in the paragraph" in line:
                words = lines[i + 1].split()
                if len(words) >= n:
                    word = re.sub(r"[^A-Za-z0-9]", "", words[n - 1])
                    return type_into(word, role="textinput") if word else None
        return None

    return fn


def last_word_of_textarea(obs: Observation) -> Command | None:
    src = next((el for el in obs.labels if el.tag == "textarea" and el.value), None)
    if src is None or not (src.value or "").split():
        return None
    word = re.sub(r"[^A-Za-z0-9]", "", (src.value or "").split()[-1])
    return type_into(word, role="textinput") if word else None


def copy_nth_textarea(nth: int) -> CommandFn:
    def fn(obs: Observation) -> Command | None:
        areas = [el for el in obs.labels if el.tag == "textarea"]
        if len(areas) < nth or not areas[nth - 1].value:
            return None
        return type_into(areas[nth - 1].value or "", role="textinput")

    return fn


_ALGEBRA = re.compile(r"(x|-?\d+)\s*([-+])\s*(x|-?\d+)\s*=\s*(-?\d+)")


def algebra(obs: Observation) -> Command | None:
    m = _ALGEBRA.search(obs.page_text)
    if not m:
        return None
    left, op, right, total = m.group(1), m.group(2), m.group(3), int(m.group(4))
    if left == "x" and right != "x":
        d = int(right)
        x = total - d if op == "+" else total + d
    elif right == "x" and left != "x":
        d = int(left)
        x = total - d if op == "+" else d - total
    else:
        return None
    return type_into(str(x), role="textbox")


_MOVIE_KEYS: dict[str, tuple[str, ...]] = {
    "genre": ("Genre", "Movie Genre"),
    "director": ("Director", "Director Name"),
    "year": ("Year", "Released Date"),
}


def _movie_field(key: str, value: str) -> CommandFn:
    # multi-layouts / multi-orderings: a field is named by its own label text when the
    # layout puts one beside it, else by its row's position in the page text (tables).
    aliases = {a.casefold() for a in _MOVIE_KEYS[key]}
    every = {a.casefold(): k for k, names in _MOVIE_KEYS.items() for a in names}

    def fn(obs: Observation) -> Command | None:
        fields = [el for el in obs.labels if el.role == "textbox"]
        for i, f in enumerate(fields):
            if " ".join(f.text.split()).rstrip(":").strip().casefold() in aliases:
                return type_into(value, nth=i + 1)
        order = []
        for line in obs.page_text.splitlines():
            name = line.strip().rstrip(":").strip().casefold()
            if name in every:
                order.append(every[name])
        if key in order and len(order) == len(fields):
            return type_into(value, nth=order.index(key) + 1)
        return None

    return fn


def movie_search(m: re.Match[str]) -> Plan:
    genre, director, year = m.group(1), m.group(2), m.group(3)
    return Plan(
        "movie-search",
        [
            PlanStep(_movie_field("genre", genre), kind="state"),
            PlanStep(_movie_field("director", director), kind="state"),
            PlanStep(_movie_field("year", year), kind="state"),
            submit_step(),
        ],
    )


_PAGER = re.compile(r"^(?:\d+|<|>|«|»|First|Last|Previous|Next)$")


def _search_page(page: int) -> CommandFn:
    def fn(obs: Observation) -> Command | None:
        if page == 1:
            return SKIP
        if not any(" ".join(el.text.split()) == str(page) for el in obs.labels):
            return None  # results and pager not drawn yet
        return click(str(page), "link")

    return fn


def _search_result(k: int) -> CommandFn:
    # The kth result on the current page, by position: titles repeat across results.
    def fn(obs: Observation) -> Command | None:
        links = [el for el in obs.labels if el.role == "link"]
        results = [el for el in links if not _PAGER.match(" ".join(el.text.split()))]
        if len(results) < k:
            return None
        return click(role="link", nth=links.index(results[k - 1]) + 1)

    return fn


def search_engine(m: re.Match[str]) -> Plan:
    query, n = m.group(1), int(m.group(2))
    page, k = (n - 1) // 3 + 1, (n - 1) % 3 + 1
    return Plan(
        "search-engine",
        [
            PlanStep(type_into(query, role="textbox"), kind="state"),
            PlanStep(click("Search", "button")),
            PlanStep(_search_page(page)),
            PlanStep(_search_result(k)),
        ],
    )


_ARITH = re.compile(r"(-?\d+)\s*([-+x*])\s*(-?\d+)\s*=")


def arithmetic(obs: Observation) -> Command | None:
    m = _ARITH.search(obs.page_text)
    if not m:
        return None
    a, op, b = int(m.group(1)), m.group(2), int(m.group(3))
    val = a + b if op == "+" else a - b if op == "-" else a * b
    return type_into(str(val), role="textbox")


def copy_textarea(obs: Observation) -> Command | None:
    src = next((el for el in obs.labels if el.tag == "textarea" and el.value), None)
    if src is None or src.value is None:
        return None
    return type_into(src.value, role="textinput")


def time_24h(readable: str) -> str:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})\s*([AP]M)?", readable.strip(), flags=re.I)
    if not m:
        raise UnsupportedUtterance(f"unreadable time {readable!r}")
    h, mi, ampm = int(m.group(1)), m.group(2), (m.group(3) or "").upper()
    if ampm == "PM" and h != 12:
        h += 12
    if ampm == "AM" and h == 12:
        h = 0
    return f"{h:02d}:{mi}"


def section_header(obs: Observation) -> Command | None:
    # The header's number is random ("Section #17"); only the page shows it.
    for el in obs.labels:
        if re.fullmatch(r"Section #\d+", " ".join(el.text.split())):
            return click(" ".join(el.text.split()))
    return None


def _autocomplete_full(prefix: str, suffix: str | None) -> CommandFn:
    # The suggestions appear only after typing (and a short delay). Their items are not
    # separately labeled, so read the full name off the page text and type it whole.
    def fn(obs: Observation) -> Command | None:
        for line in obs.page_text.splitlines():
            t = line.strip()
            if t.startswith(prefix) and (suffix is None or t.endswith(suffix)) and t != prefix:
                return type_into(t, role="textbox")
        return None

    return fn


def _close_suggestions(obs: Observation) -> Command | None:
    # The open list covers Submit; with the full name typed it holds that one item, and
    # clicking it picks it and closes the list.
    menu = next((el for el in obs.labels if el.tag == "ul"), None)
    if menu is None:
        return SKIP
    field = next((el for el in obs.labels if el.role == "textbox"), None)
    text = " ".join(menu.text.split())
    if field is None or text != " ".join((field.value or "").split()):
        return None  # the list still shows an older search (it updates after a delay)
    return click(text, "generic")


def autocomplete(m: re.Match[str]) -> Plan:
    prefix, suffix = m.group(1), m.group(2)
    return Plan(
        "autocomplete",
        [
            PlanStep(type_into(prefix, role="textbox")),
            PlanStep(_autocomplete_full(prefix, suffix), kind="state"),
            PlanStep(_close_suggestions),
            submit_step(),
        ],
    )


def popup_open(obs: Observation) -> bool:
    return "Exit to home page?" in obs.page_text
