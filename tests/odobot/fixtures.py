"""Hand-written trajectories: the two of OdoBot's Figure 1 (log in, then a course or Groups)."""

from __future__ import annotations

from odobot.events import ElementInfo, Trajectory, TrajEvent

LOGIN = "/login/canvas"
USER_XP = "/html[1]/body[1]/div[3]/div[2]/input[1]"
PASS_XP = "/html[1]/body[1]/div[3]/div[2]/input[2]"
BUTTON_XP = "/html[1]/body[1]/div[3]/div[2]/button[1]"
CARD_XP = "/html[1]/body[1]/main[1]/div[1]/div[2]/a[1]"
GROUPS_XP = "/html[1]/body[1]/nav[1]/a[4]"


def _ev(tid: str, i: int, kind: str, **kw: object) -> TrajEvent:
    return TrajEvent(id=f"{tid}#{i}", kind=kind, t=float(i), **kw)  # type: ignore[arg-type]


def login_then(tid: str, user: str, last: TrajEvent) -> Trajectory:
    el = ElementInfo(tag="input", attrs={"name": "username"})
    evs = [
        _ev(tid, 0, "input", base_path=LOGIN, xpath=USER_XP, value=user, element=el),
        _ev(tid, 1, "input", base_path=LOGIN, xpath=PASS_XP, value="secret"),
        _ev(tid, 2, "click", base_path=LOGIN, xpath=BUTTON_XP, text="Log in"),
        _ev(tid, 3, "api", base_path=LOGIN, method="POST", url="http://h/login/canvas"),
        _ev(tid, 4, "location", base_path="/", url="http://h/"),
        _ev(tid, 5, "dom_effect", added=['div.card "Biology"', 'div.card "Physics"']),
        _ev(tid, 6, "dom_effect", added=['span.badge "3"']),
        last.model_copy(update={"id": f"{tid}#7", "t": 7.0}),
    ]
    return Trajectory(id=tid, events=evs)


def figure1() -> list[Trajectory]:
    card = _ev("x", 7, "click", base_path="/", xpath=CARD_XP, text="Biology 101")
    groups = _ev("x", 7, "click", base_path="/", xpath=GROUPS_XP, text="Groups")
    return [login_then("a6aa9079", "alice", card), login_then("85409a14", "bob", groups)]


class CharCounter:
    """Counts characters as tokens: the prompts' sizes without a tokenizer."""

    name = "chars"

    def prompt(self, messages: list[dict]) -> int:
        return sum(len(m["content"]) for m in messages)

    def completion(self, text: str) -> int:
        return len(text)
