"""MiniWoB++ utterances to command plans: WebRider "Hierarchical Controller" (top layer).

Each supported utterance family (templates read from the tasks' own page scripts in the
miniwob wheel) becomes a short plan of grammar commands (`miniwob_plan`); steps whose value
only the page shows live in `miniwob_page_steps`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent_runtime.top.miniwob_page_steps import (
    ORDINALS,
    algebra,
    arithmetic,
    autocomplete,
    copy_nth_textarea,
    copy_textarea,
    last_word_of_textarea,
    movie_search,
    nth_word,
    popup_open,
    read_table_value,
    search_engine,
    section_header,
    table_field,
    time_24h,
)
from agent_runtime.top.miniwob_plan import (
    Interrupt,
    Plan,
    PlanStep,
    Reveal,
    UnsupportedUtterance,
    submit_step,
)
from contracts.command import Command, Target, click, type_into

# --- utterance families --------------------------------------------------------------

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
    return Plan("select-and-submit", [*steps, submit_step()])


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
            "expand-and-submit",
            [PlanStep(section_header), PlanStep(Command("wait")), submit_step()],
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
            "enter-text",
            [PlanStep(type_into(m.group(1), role="textbox"), kind="state"), submit_step()],
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
                submit_step(),
            ],
        ),
    ),
    (
        "enter-password",
        r'Enter the password "(.+)" into both text fields and press submit\.',
        lambda m: Plan(
            "enter-password",
            [
                # The fields' own labels, as the login plan names them: the middle then
                # copies a visible text instead of counting textboxes.
                PlanStep(type_into(m.group(1), "Password", nth=1), kind="state"),
                PlanStep(type_into(m.group(1), "Verify password", nth=2), kind="state"),
                submit_step(),
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
                submit_step(),
            ],
            interrupts=[Interrupt(popup_open, click("Cancel", "button"))],
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
            [PlanStep(Command("focus", Target(role="textbox", nth=ORDINALS[m.group(1)])))],
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
                submit_step(),
            ],
        ),
    ),
    ("select-and-submit", r"Select (.+) and click Submit\.", _checks),
    (
        "read-table",
        r"Enter the value of (.+) into the text field and press Submit\.",
        lambda m: Plan(
            "read-table",
            [PlanStep(read_table_value(m.group(1).strip()), kind="state"), submit_step()],
        ),
    ),
    (
        "arithmetic",
        r"Solve the math problem and type your answer into the textbox\. Press submit when done\.",
        lambda m: Plan("arithmetic", [PlanStep(arithmetic, kind="state"), submit_step()]),
    ),
    (
        "copy-paste",
        r"Copy the text in the textarea below, paste it into the textbox and press Submit\.",
        lambda m: Plan("copy-paste", [PlanStep(copy_textarea, kind="state"), submit_step()]),
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
                submit_step(),
            ],
        ),
    ),
    (
        "enter-time",
        r"Enter (.+) as the time and press submit\.",
        lambda m: Plan(
            "enter-time",
            [
                PlanStep(type_into(time_24h(m.group(1)), role="textbox"), kind="state"),
                submit_step(),
            ],
        ),
    ),
    (
        "autocomplete",
        r'Enter an item that starts with "(.+?)"(?: and ends with "(.+?)")?\.',
        autocomplete,
    ),
    (
        "read-table-2",
        r"Enter the value that corresponds with each label into the form and submit when done\.",
        lambda m: Plan(
            "read-table-2",
            [
                PlanStep(table_field(1), kind="state"),
                PlanStep(table_field(2), kind="state"),
                submit_step(),
            ],
        ),
    ),
    (
        "find-word",
        r'Find the (\w+) word in the paragraph, type that into the textbox and press "Submit"\.',
        lambda m: Plan("find-word", [PlanStep(nth_word(m.group(1)), kind="state"), submit_step()]),
    ),
    (
        "scroll-text",
        r"Find the last word in the text area, enter it into the text field and hit Submit\.",
        lambda m: Plan(
            "scroll-text", [PlanStep(last_word_of_textarea, kind="state"), submit_step()]
        ),
    ),
    (
        "copy-paste-2",
        r"Copy the text from the (1st|2nd|3rd) text area below and paste it into the text input, "
        r"then press Submit\.",
        lambda m: Plan(
            "copy-paste-2",
            [PlanStep(copy_nth_textarea(ORDINALS[m.group(1)]), kind="state"), submit_step()],
        ),
    ),
    (
        "algebra",
        r"Solve for x and type your answer into the textbox\. Press Submit when done\.",
        lambda m: Plan("algebra", [PlanStep(algebra, kind="state"), submit_step()]),
    ),
    (
        "movie-search",
        r"Search for (.+) movies directed by (.+) from year (\d+)\.",
        movie_search,
    ),
    (
        "search-engine",
        r'Use the textbox to enter "(.+)" and press "Search", then find and click the '
        r"(\d+)(?:st|nd|rd|th) search result\.",
        search_engine,
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
