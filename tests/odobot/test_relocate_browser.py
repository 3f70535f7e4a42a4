"""Re-location in real Chromium (OdoBot IV): a demonstrated element that moved is found again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agent_runtime.browser.launch import CHROMIUM_PATH, BrowserSession

pytestmark = pytest.mark.browser
if not CHROMIUM_PATH.exists():  # pragma: no cover - the set-up command installs it
    pytest.skip(f"{CHROMIUM_PATH} missing; run the README set-up", allow_module_level=True)

FORM = (
    "<html><body><main>{banner}<div class='bar'><button onclick=\"document.title='cancel'\">"
    "Cancel</button><button onclick=\"document.title='saved'\">Save</button></div>"
    "<div class='list'>{cards}</div></main></body></html>"
)
CARD = "<div class='card'><h3><a href='#{n}' onclick=\"document.title='{n}'\">{n}</a></h3></div>"
SAVE_XP = "/html[1]/body[1]/main[1]/div[1]/button[2]"


def _page(banner: bool, names: list[str]) -> str:
    # The banner's second button sits exactly where "Save" was: same XPath, other element.
    top = "<div class='banner'><button>Dismiss</button><button>Details</button></div>"
    top = top if banner else ""
    return FORM.format(banner=top, cards="".join(CARD.format(n=n) for n in names))


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    with BrowserSession() as s:
        yield s.page


def test_relocate_finds_a_moved_element_by_fingerprint(page: Any) -> None:
    from odobot.locate import element_info, relocate

    page.set_content(_page(False, ["A", "B"]))
    assert element_info(page, SAVE_XP)["text"] == "Save"
    assert relocate(page, SAVE_XP, "button", "Save", {}, "click") == (SAVE_XP, False)
    page.set_content(_page(True, ["A", "B"]))  # a banner now sits above everything
    assert element_info(page, SAVE_XP)["text"] == "Details"
    xp, moved = relocate(page, SAVE_XP, "button", "Save", {}, "click")
    assert moved and xp == "/html[1]/body[1]/main[1]/div[2]/button[2]"
    assert element_info(page, xp)["text"] == "Save"
    assert relocate(page, SAVE_XP, "button", "Publish", {}, "click") == (None, True)


def test_cursor_replay_clicks_the_moved_element_and_a_dynamic_choice(page: Any) -> None:
    from odobot.act import perform
    from odobot.capture import Recorder
    from odobot.prompts import PromptLog

    class Oracle:
        name = "oracle"

        def answer(self, prompt) -> str:
            assert "C" in prompt.choices
            return '"C"'

    class Count:
        name = "words"

        def prompt(self, messages: list[dict]) -> int:
            return sum(len(m["content"].split()) for m in messages)

        def completion(self, text: str) -> int:
            return 1

    rec = Recorder(page)
    page.set_content(_page(True, ["C", "A", "B"]))
    log = PromptLog(Oracle(), Count())
    save = {"kind": "click", "fixed": {"xpath": SAVE_XP}, "text": "Save", "attrs": {},
            "html": "<button>Save</button>", "dynamic": None}  # fmt: skip
    assert perform(rec, log, "v1", save, "save it") is True  # it moved under the banner
    assert page.title() == "saved" and log.calls == []  # a fixed click asks no model
    # A dynamicXpath click recorded when the list sat at main/div[2]; now the order changed.
    card = {"kind": "click", "fixed": {"xpath": "x"}, "text": "A", "attrs": {}, "html": "",
            "dynamic": {"prefix": "/html[1]/body[1]/main[1]/div[2]", "tag": "div",
                        "suffix": "/h3[1]/a[1]"}}  # fmt: skip
    perform(rec, log, "v2", card, "open C")
    assert page.title() == "C"
    assert len(log.calls) == 1 and log.calls[0].kind == "option"
    assert '- <a href="#C">C</a>' in log.calls[0].user and log.calls[0].answer == "C"
