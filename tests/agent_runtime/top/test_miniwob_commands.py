"""MiniWoB utterance parser on real utterances (collected from the wheel's pages, seeds 100-119)."""

from __future__ import annotations

import pytest

from agent_runtime.top.miniwob_commands import parse_utterance, plan_commands
from tests.helpers.observations import el, obs

CASES = [
    ('Click on the "previous" button.', ['click "previous" button']),
    ('Click on the "Ok" button.', ['click "Ok" button']),
    ('Click on the link "tempor.".', ['click "tempor." link']),
    ("Click on Tab #2.", ['click "Tab #2" tab']),
    ('Switch between the tabs to find and click on the link "sapien".', ['click "sapien" link']),
    (
        'Expand the sections below, to find and click on the link "Egestas.".',
        ['click "Egestas." link'],
    ),
    (
        'Enter "Nieves" into the text field and press Submit.',
        ['type "Nieves" into textbox', "submit"],
    ),
    (
        'Type "JOYE" in all lower case letters in the text input and press Submit.',
        ['type "joye" into textbox', "submit"],
    ),
    (
        'Enter the password "XN4" into both text fields and press submit.',
        [
            'type "XN4" into "Password" textbox #1',
            'type "XN4" into "Verify password" textbox #2',
            "submit",
        ],
    ),
    (
        'Enter the username "karrie" and the password "yn" into the text fields and press login.',
        [
            'type "karrie" into "Username" textbox #1',
            'type "yn" into "Password" textbox #2',
            "submit",
        ],
    ),
    (
        "Select XN46, DeG, bXPpd and click Submit.",
        ['check "XN46"', 'check "DeG"', 'check "bXPpd"', "submit"],
    ),
    ("Select nothing and click Submit.", ["submit"]),
    (
        "Select Trinidad and Tobago from the list and click Submit.",
        ['select "Trinidad and Tobago" in combobox', "submit"],
    ),
    ("Focus into the 2nd input textbox.", ["focus textbox #2"]),
    ("Focus into the textbox.", ["focus textbox"]),
    ('Click on a "textarea" widget.', ["click textarea"]),
    ('Click on a "text" widget.', ["click textinput"]),
    ('Close the dialog box by clicking the "x".', ['click "Close" button']),
    ('Click the button in the dialog box labeled "OK".', ['click "OK" button']),
    ("Click button ONE, then click button TWO.", ['click "ONE" button', 'click "TWO" button']),
    ("Click button TWO.", ['click "TWO" button']),
    ("Click the button.", ["click button"]),
    ("Enter 03/14/2015 as the date and hit submit.", ['type "2015-03-14" into textbox', "submit"]),
    ("Enter 3:07 PM as the time and press submit.", ['type "15:07" into textbox', "submit"]),
    ("Enter 12:30 AM as the time and press submit.", ['type "00:30" into textbox', "submit"]),
]


@pytest.mark.parametrize(("utterance", "expected"), CASES)
def test_real_utterances(utterance: str, expected: list[str]) -> None:
    assert plan_commands(utterance) == expected


PAGE_DERIVED = [
    'Find the 5th word in the paragraph, type that into the textbox and press "Submit".',
    "Copy the text from the 3rd text area below and paste it into the text input, then press "
    "Submit.",
    "Search for paranoid movies directed by Holden from year 2006.",
    "Enter the value that corresponds with each label into the form and submit when done.",
    "Solve for x and type your answer into the textbox. Press Submit when done.",
    "Find the last word in the text area, enter it into the text field and hit Submit.",
    'Enter an item that starts with "Les".',
]


@pytest.mark.parametrize("utterance", PAGE_DERIVED)
def test_page_derived_families_parse(utterance: str) -> None:
    plan = parse_utterance(utterance)
    assert plan.supported and plan.steps


def test_search_engine_plan() -> None:
    u = (
        'Use the textbox to enter "Marcella" and press "Search", then find and click the '
        "5th search result."
    )
    plan = parse_utterance(u)
    assert plan_commands(u)[:2] == ['type "Marcella" into textbox', 'click "Search" button']
    pager = [el(0, "link", "<"), el(1, "link", "1"), el(2, "link", "2"), el(3, "link", ">")]
    page2 = obs(el(4, "link", "Rex"), el(5, "link", "Marcella"), el(6, "link", "Rex"), *pager)
    assert plan.steps[2].resolve(page2).render() == 'click "2" link'
    # 5th result = 2nd on page 2, picked by position (titles repeat)
    assert plan.steps[3].resolve(page2).render() == "click link #2"


def test_movie_fields_by_label_or_row_order() -> None:
    plan = parse_utterance("Search for action movies directed by Burris from year 1973.")
    labeled = obs(
        el(0, "textbox", "Year:"), el(1, "textbox", "Genre:"), el(2, "textbox", "Director:")
    )
    assert plan.steps[0].resolve(labeled).render() == 'type "action" into textbox #2'
    table = obs(
        el(0, "textbox"),
        el(1, "textbox"),
        el(2, "textbox"),
        page_text="Movie Search\nDirector\t\nYear\t\nGenre\t\nSubmit",
    )
    assert plan.steps[2].resolve(table).render() == 'type "1973" into textbox #2'


def test_unsupported() -> None:
    assert not parse_utterance("Select words similar to big, small and click Submit.").supported
    assert not parse_utterance("Draw a circle.").supported


def test_page_derived_values() -> None:
    plan = parse_utterance("Enter the value of Country into the text field and press Submit.")
    o = obs(el(0, "textbox", ""), page_text="Color\tred\nCountry\tPeru\n")
    assert plan.steps[0].resolve(o).render() == 'type "Peru" into textbox'
    plan = parse_utterance(
        "Solve the math problem and type your answer into the textbox. Press submit when done."
    )
    assert plan.steps[0].resolve(obs(page_text="7 x 8 =")).payload == "56"
    assert plan.steps[0].resolve(obs(page_text="3 - 9 =")).payload == "-6"
    plan = parse_utterance("Expand the section below and click submit.")
    assert plan.steps[0].resolve(obs(el(0, "tab", "Section #17"))).render() == 'click "Section #17"'
