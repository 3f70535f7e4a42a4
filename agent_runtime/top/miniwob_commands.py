"""MiniWoB++ utterances to command plans: WebRider "Hierarchical Controller" (top layer).

Each supported utterance family (templates read from the tasks' own page scripts in the
miniwob wheel) becomes a short plan of grammar commands. Steps are re-checked against
every observation, so a plan survives a failed or repeated step:

- a `state` step is done when the page shows it done (box checked, field holds the text);
- a `once` step is done after an executed click/type for it;
- a step with `reveal` first opens tabs/sections until its target is visible;
- `interrupts` pre-empt the plan (e.g. dismiss a session pop-up) whenever they apply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from agent_runtime.contracts.observation import ElementLabel, Observation
from agent_runtime.top.commands import Command, Target, click, type_into

CommandFn = Callable[[Observation], Command | None]

# Returned by a page-derived step when the page shows it is not needed (e.g. no list open).
SKIP = Command("wait", Target(text="skip"))


@dataclass(frozen=True)
class Reveal:
    """Elements to open, one at a time, until the step's target becomes visible."""

    role: str | None = None
    text_pattern: str | None = None  # regex matched against the element text

    def candidates(self, obs: Observation) -> list[ElementLabel]:
        out = []
        for el in obs.labels:
            if self.role and el.role != self.role:
                continue
            if self.text_pattern and not re.fullmatch(self.text_pattern, " ".join(el.text.split())):
                continue
            out.append(el)
        return out


@dataclass
class PlanStep:
    command: Command | CommandFn
    kind: Literal["once", "state"] = "once"
    reveal: Reveal | None = None

    def resolve(self, obs: Observation) -> Command | None:
        return self.command(obs) if callable(self.command) else self.command


@dataclass
class Interrupt:
    when: Callable[[Observation], bool]
    command: Command


@dataclass
class Plan:
    family: str
    steps: list[PlanStep] = field(default_factory=list)
    interrupts: list[Interrupt] = field(default_factory=list)

    @property
    def supported(self) -> bool:
        return self.family != "unsupported"


class UnsupportedUtterance(ValueError):
    pass


def _submit() -> PlanStep:
    return PlanStep(Command("submit"))


# --- values the page shows rather than the utterance states ---------------------------


def _read_table_value(key: str) -> CommandFn:
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


def _table_field(nth: int) -> CommandFn:
    # read-table-2: each field's label names a table key ("Color:"); type that key's value.
    def fn(obs: Observation) -> Command | None:
        fields = [el for el in obs.labels if el.role == "textbox"]
        if len(fields) < nth:
            return None
        label = " ".join(fields[nth - 1].text.split())
        value = _table(obs).get(label.rstrip(":").strip())
        return type_into(value, label, nth=nth) if value else None

    return fn


def _nth_word(pos: str) -> CommandFn:
    n = int(re.match(r"\d+", pos).group()) if pos[0].isdigit() else _POS[pos]  # type: ignore[union-attr]

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


def _last_word_of_textarea(obs: Observation) -> Command | None:
    src = next((el for el in obs.labels if el.tag == "textarea" and el.value), None)
    if src is None or not (src.value or "").split():
        return None
    word = re.sub(r"[^A-Za-z0-9]", "", (src.value or "").split()[-1])
    return type_into(word, role="textinput") if word else None


def _copy_nth_textarea(nth: int) -> CommandFn:
    def fn(obs: Observation) -> Command | None:
        areas = [el for el in obs.labels if el.tag == "textarea"]
        if len(areas) < nth or not areas[nth - 1].value:
            return None
        return type_into(areas[nth - 1].value or "", role="textinput")

    return fn


_ALGEBRA = re.compile(r"(x|-?\d+)\s*([-+])\s*(x|-?\d+)\s*=\s*(-?\d+)")


def _algebra(obs: Observation) -> Command | None:
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


def _movie_search(m: re.Match[str]) -> Plan:
    genre, director, year = m.group(1), m.group(2), m.group(3)
    return Plan(
        "movie-search",
        [
            PlanStep(_movie_field("genre", genre), kind="state"),
            PlanStep(_movie_field("director", director), kind="state"),
            PlanStep(_movie_field("year", year), kind="state"),
            _submit(),
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


def _search_engine(m: re.Match[str]) -> Plan:
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


def _arithmetic(obs: Observation) -> Command | None:
    m = _ARITH.search(obs.page_text)
    if not m:
        return None
    a, op, b = int(m.group(1)), m.group(2), int(m.group(3))
    val = a + b if op == "+" else a - b if op == "-" else a * b
    return type_into(str(val), role="textbox")


def _copy_textarea(obs: Observation) -> Command | None:
    src = next((el for el in obs.labels if el.tag == "textarea" and el.value), None)
    if src is None or src.value is None:
        return None
    return type_into(src.value, role="textinput")


def _time_24h(readable: str) -> str:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})\s*([AP]M)?", readable.strip(), flags=re.I)
    if not m:
        raise UnsupportedUtterance(f"unreadable time {readable!r}")
    h, mi, ampm = int(m.group(1)), m.group(2), (m.group(3) or "").upper()
    if ampm == "PM" and h != 12:
        h += 12
    if ampm == "AM" and h == 12:
        h = 0
    return f"{h:02d}:{mi}"


def _section_header(obs: Observation) -> Command | None:
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


def _autocomplete(m: re.Match[str]) -> Plan:
    prefix, suffix = m.group(1), m.group(2)
    return Plan(
        "autocomplete",
        [
            PlanStep(type_into(prefix, role="textbox")),
            PlanStep(_autocomplete_full(prefix, suffix), kind="state"),
            PlanStep(_close_suggestions),
            _submit(),
        ],
    )


def _popup_open(obs: Observation) -> bool:
    return "Exit to home page?" in obs.page_text


# --- utterance families --------------------------------------------------------------

_POS = {"1st": 1, "2nd": 2, "3rd": 3}
_WIDGET_ROLE = {
    "radio": "radio",
    "checkbox": "checkbox",
    "text": "textinput",
    "textarea": "textarea",
    "button": "button",
}

Handler = Callable[[re.Match[str]], Plan]


def _checks(m: re.Match[str]) -> Plan:
    items = [] if m.group(1) == "nothing" else [s.strip() for s in m.group(1).split(",")]
    steps = [PlanStep(Command("check", Target(text=i)), kind="state") for i in items if i]
    return Plan("select-and-submit", [*steps, _submit()])


def _dialog_button(m: re.Match[str]) -> Plan:
    name = m.group(1)
    # jQuery UI's title-bar close button shows an "x" icon but its text is "Close".
    return Plan("dialog-button", [PlanStep(click("Close" if name == "x" else name, "button"))])


FAMILIES: list[tuple[str, str, Handler]] = [
    # Checked before the generic "Select ... and click Submit." so synonyms are not taken literally.
    ("unsupported", r"Select words similar to .*", lambda m: Plan("unsupported")),
    (
        "click-button",
        r'Click on the "(.+)" button\.',
        lambda m: Plan("click-button", [PlanStep(click(m.group(1), "button"))]),
    ),
    (
        "click-link",
        r'Click on the link "(.+)"\.',
        lambda m: Plan("click-link", [PlanStep(click(m.group(1), "link"))]),
    ),
    (
        "click-tab",
        r"Click on Tab #(\d+)\.",
        lambda m: Plan("click-tab", [PlanStep(click(f"Tab #{m.group(1)}", "tab"))]),
    ),
    (
        "find-link-in-tabs",
        r'Switch between the tabs to find and click on the link "(.+)"\.',
        lambda m: Plan(
            "find-link-in-tabs", [PlanStep(click(m.group(1), "link"), reveal=Reveal(role="tab"))]
        ),
    ),
    (
        "find-link-in-sections",
        r'Expand the sections below, to find and click on the link "(.+)"\.',
        lambda m: Plan(
            "find-link-in-sections",
            [PlanStep(click(m.group(1), "link"), reveal=Reveal(text_pattern=r"Section #\d+"))],
        ),
    ),
    (
        "expand-and-submit",
        r"Expand the section below and click submit\.",
        # The wait lets the panel finish opening: Submit moves while it animates.
        lambda m: Plan(
            "expand-and-submit", [PlanStep(_section_header), PlanStep(Command("wait")), _submit()]
        ),
    ),
    (
        "click-widget",
        r'Click on a "(\w+)" widget\.',
        lambda m: Plan("click-widget", [PlanStep(click(role=_WIDGET_ROLE[m.group(1)]))]),
    ),
    ("dialog-close", r'Close the dialog box by clicking the "(x)"\.', _dialog_button),
    ("dialog-button", r'Click the button in the dialog box labeled "(.+)"\.', _dialog_button),
    (
        "click-the-button",
        r"Click the button\.",
        lambda m: Plan("click-the-button", [PlanStep(click(role="button"))]),
    ),
    (
        "button-sequence",
        r"Click button ONE, then click button TWO\.",
        lambda m: Plan(
            "button-sequence", [PlanStep(click("ONE", "button")), PlanStep(click("TWO", "button"))]
        ),
    ),
    (
        "click-named-button",
        r"Click button (\w+)\.",
        lambda m: Plan("click-named-button", [PlanStep(click(m.group(1), "button"))]),
    ),
    (
        "enter-text",
        r'Enter "(.+)" into the text field and press Submit\.',
        lambda m: Plan(
            "enter-text", [PlanStep(type_into(m.group(1), role="textbox"), kind="state"), _submit()]
        ),
    ),
    (
        "enter-text-case",
        r'Type "(.+)" in all (upper|lower) case letters in the text input and press Submit\.',
        lambda m: Plan(
            "enter-text-case",
            [
                PlanStep(
                    type_into(
                        m.group(1).upper() if m.group(2) == "upper" else m.group(1).lower(),
                        role="textbox",
                    ),
                    kind="state",
                ),
                _submit(),
            ],
        ),
    ),
    (
        "enter-password",
        r'Enter the password "(.+)" into both text fields and press submit\.',
        lambda m: Plan(
            "enter-password",
            [
                PlanStep(type_into(m.group(1), nth=1), kind="state"),
                PlanStep(type_into(m.group(1), nth=2), kind="state"),
                _submit(),
            ],
        ),
    ),
    (
        "login",
        r'Enter the username "(.+)" and the password "(.+)" into the text fields and press login\.',
        lambda m: Plan(
            "login",
            [
                PlanStep(type_into(m.group(1), "Username", nth=1), kind="state"),
                PlanStep(type_into(m.group(2), "Password", nth=2), kind="state"),
                _submit(),
            ],
            interrupts=[Interrupt(_popup_open, click("Cancel", "button"))],
        ),
    ),
    (
        "focus-text",
        r"Focus into the textbox\.",
        lambda m: Plan("focus-text", [PlanStep(Command("focus", Target(role="textbox")))]),
    ),
    (
        "focus-nth-text",
        r"Focus into the (1st|2nd|3rd) input textbox\.",
        lambda m: Plan(
            "focus-nth-text",
            [PlanStep(Command("focus", Target(role="textbox", nth=_POS[m.group(1)])))],
        ),
    ),
    (
        "choose-list",
        r"Select (.+) from the list and click Submit\.",
        lambda m: Plan(
            "choose-list",
            [
                PlanStep(
                    Command("select", Target(role="combobox"), payload=m.group(1)), kind="state"
                ),
                _submit(),
            ],
        ),
    ),
    ("select-and-submit", r"Select (.+) and click Submit\.", _checks),
    (
        "read-table",
        r"Enter the value of (.+) into the text field and press Submit\.",
        lambda m: Plan(
            "read-table", [PlanStep(_read_table_value(m.group(1).strip()), kind="state"), _submit()]
        ),
    ),
    (
        "arithmetic",
        r"Solve the math problem and type your answer into the textbox\. Press submit when done\.",
        lambda m: Plan("arithmetic", [PlanStep(_arithmetic, kind="state"), _submit()]),
    ),
    (
        "copy-paste",
        r"Copy the text in the textarea below, paste it into the textbox and press Submit\.",
        lambda m: Plan("copy-paste", [PlanStep(_copy_textarea, kind="state"), _submit()]),
    ),
    (
        "enter-date",
        r"Enter (\d{2})/(\d{2})/(\d{4}) as the date and hit submit\.",
        lambda m: Plan(
            "enter-date",
            [
                PlanStep(
                    type_into(f"{m.group(3)}-{m.group(1)}-{m.group(2)}", role="textbox"),
                    kind="state",
                ),
                _submit(),
            ],
        ),
    ),
    (
        "enter-time",
        r"Enter (.+) as the time and press submit\.",
        lambda m: Plan(
            "enter-time",
            [PlanStep(type_into(_time_24h(m.group(1)), role="textbox"), kind="state"), _submit()],
        ),
    ),
    (
        "autocomplete",
        r'Enter an item that starts with "(.+?)"(?: and ends with "(.+?)")?\.',
        _autocomplete,
    ),
    (
        "read-table-2",
        r"Enter the value that corresponds with each label into the form and submit when done\.",
        lambda m: Plan(
            "read-table-2",
            [
                PlanStep(_table_field(1), kind="state"),
                PlanStep(_table_field(2), kind="state"),
                _submit(),
            ],
        ),
    ),
    (
        "find-word",
        r'Find the (\w+) word in the paragraph, type that into the textbox and press "Submit"\.',
        lambda m: Plan("find-word", [PlanStep(_nth_word(m.group(1)), kind="state"), _submit()]),
    ),
    (
        "scroll-text",
        r"Find the last word in the text area, enter it into the text field and hit Submit\.",
        lambda m: Plan("scroll-text", [PlanStep(_last_word_of_textarea, kind="state"), _submit()]),
    ),
    (
        "copy-paste-2",
        r"Copy the text from the (1st|2nd|3rd) text area below and paste it into the text input, "
        r"then press Submit\.",
        lambda m: Plan(
            "copy-paste-2",
            [PlanStep(_copy_nth_textarea(_POS[m.group(1)]), kind="state"), _submit()],
        ),
    ),
    (
        "algebra",
        r"Solve for x and type your answer into the textbox\. Press Submit when done\.",
        lambda m: Plan("algebra", [PlanStep(_algebra, kind="state"), _submit()]),
    ),
    (
        "movie-search",
        r"Search for (.+) movies directed by (.+) from year (\d+)\.",
        _movie_search,
    ),
    (
        "search-engine",
        r'Use the textbox to enter "(.+)" and press "Search", then find and click the '
        r"(\d+)(?:st|nd|rd|th) search result\.",
        _search_engine,
    ),
    (
        "navigate-tree",
        r'Navigate through the file tree\. Find and click on the folder or file named "(.+)"\.',
        lambda m: Plan(
            "navigate-tree",
            [PlanStep(click(m.group(1), "treeitem"), reveal=Reveal(role="generic"))],
        ),
    ),
]

_COMPILED = [(name, re.compile(pat), fn) for name, pat, fn in FAMILIES]


def parse_utterance(utterance: str) -> Plan:
    """Plan for one MiniWoB utterance; family "unsupported" when no template matches."""
    text = " ".join(utterance.split())
    for _name, pat, fn in _COMPILED:
        m = pat.fullmatch(text)
        if m:
            try:
                return fn(m)
            except (UnsupportedUtterance, KeyError):
                return Plan("unsupported")
    return Plan("unsupported")


def plan_commands(utterance: str) -> list[str]:
    """Rendered static commands of a plan (page-derived steps show as `<from page>`)."""
    plan = parse_utterance(utterance)
    return [
        s.command.render() if isinstance(s.command, Command) else "<from page>" for s in plan.steps
    ]
