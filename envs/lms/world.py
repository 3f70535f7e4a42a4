"""Seeded LMS data: OdoBot Section V (data generation for mock courses, varied per seed).

A seed fixes the account, the courses and every item in them, and the layout (course
navigation order, a notice banner that shifts every XPath below it, item order). Two seeds give
different counts, orders and ids; the name pool (`names`) decides which half of every name list
a world draws from, so a held-out world's courses, people and titles never occur in a training
world (nor in a task drawn from one).
"""

from __future__ import annotations

import base64
import hashlib
import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from envs.lms.sections import (
    COURSE_SECTIONS,
    LANGUAGES,
    PRONOUNS,
    TIME_ZONES,
    VISIBILITY,
)

SUBJECTS = ["Biology", "Chemistry", "Physics", "History", "Psychology", "Economics", "Geology",
            "Linguistics", "Statistics", "Philosophy", "Astronomy", "Sociology", "Music Theory",
            "Ecology", "Anthropology", "Marine Science"]  # fmt: skip
FIRST = ["Ava", "Liam", "Noah", "Maya", "Omar", "Zoe", "Ivan", "Lena", "Ravi", "Sara", "Theo",
         "Nina", "Kofi", "Aiko", "Mateo", "Elif", "Jonas", "Priya", "Hugo", "Wen"]  # fmt: skip
LAST = ["Chen", "Okafor", "Silva", "Novak", "Haddad", "Larsen", "Tanaka", "Moreau", "Kaur",
        "Brennan", "Duarte", "Fischer", "Quinn", "Abara", "Lindqvist"]  # fmt: skip
ADJ = ["Early", "Hidden", "Quiet", "Rapid", "Curious", "Open", "Second", "Final", "Weekly",
       "Applied", "Field", "Lab", "Midterm", "Group", "Review", "Spring", "Deep",
       "Core"]  # fmt: skip
NOUN = ["Patterns", "Questions", "Methods", "Notes", "Project", "Reflection", "Survey", "Essay",
        "Debate", "Case Study", "Workshop", "Readings", "Experiment", "Proposal", "Summary",
        "Checkpoint", "Primer", "Journal"]  # fmt: skip
QUIZ_CHOICES = ["True", "False", "Sometimes", "Never", "Always", "Depends"]
NamePool = Literal["train", "heldout"]
BANNERS = ["Scheduled maintenance Sunday 02:00-04:00.", "New: course analytics are live."]


class User(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    login: str
    name: str
    password: str


class Item(BaseModel):
    """One row of a section (a discussion, a page, a person, a course's settings ...)."""

    model_config = ConfigDict(extra="forbid")
    id: int
    section: str
    course_id: int | None
    position: float
    data: dict[str, Any]
    deleted: bool = False


class Record(BaseModel):
    """A sub-record an action adds to an item: a reply, a submission, a grade, a link."""

    model_config = ConfigDict(extra="forbid")
    id: int
    item_id: int
    kind: str
    data: dict[str, Any]


class Layout(BaseModel):
    model_config = ConfigDict(extra="forbid")
    nav_order: list[str]
    banner: str = ""


class World(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seed: int
    names: NamePool = "train"
    me: User
    users: list[User]
    items: list[Item]
    records: list[Record] = Field(default_factory=list)
    layout: Layout

    def courses(self) -> list[Item]:
        return sorted((i for i in self.items if i.section == "settings"), key=lambda i: i.position)


def pool(names: NamePool, words: list[str]) -> list[str]:
    """Every other entry of a name list: the training half or the held-out half."""
    return words[0 if names == "train" else 1 :: 2]


def title(rng: random.Random, names: NamePool, high: int = 99) -> str:
    return f"{rng.choice(pool(names, ADJ))} {rng.choice(pool(names, NOUN))} {rng.randint(1, high)}"


def title_pool(rng: random.Random, n: int, used: set[str], names: NamePool) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        t = title(rng, names)
        if t not in used:
            used.add(t)
            out.append(t)
    return out


def person_name(rng: random.Random, used: set[str], names: NamePool = "train") -> str:
    while True:
        n = f"{rng.choice(pool(names, FIRST))} {rng.choice(pool(names, LAST))}"
        if n not in used:
            used.add(n)
            return n


def world_password(seed: int) -> str:
    """The signed-in user's password: long enough to be told from any text on a page, derived
    from the seed without drawing from the world's generator (the rest of the world is as it
    was), and a secret the agent only ever names (contracts/secrets.py)."""
    digest = hashlib.sha256(f"pathwise-lms-password-{seed}".encode()).digest()
    return base64.b32encode(digest).decode()[:12].capitalize() + "7!"


def generate_world(seed: int, *, banner: bool | None = None, names: NamePool = "train") -> World:
    """The LMS data for `seed`; `banner` forces the layout notice on or off, `names` picks the
    half of every name list the world draws from."""
    rng = random.Random(seed)
    used: set[str] = set()
    me_name = person_name(rng, used, names)
    me = User(
        id=rng.randint(2, 9),
        login=me_name.split()[0].lower(),
        name=me_name,
        password=world_password(seed),
    )
    users = [me] + [
        User(id=100 + k, login=f"user{k}", name=person_name(rng, used, names), password="-")
        for k in range(rng.randint(8, 12))
    ]
    next_id = rng.randint(10, 40)
    items: list[Item] = []

    def add(section: str, course_id: int | None, data: dict[str, Any]) -> Item:
        nonlocal next_id
        next_id += rng.randint(1, 3)  # gaps, so ids are not positions
        it = Item(id=next_id, section=section, course_id=course_id, position=0, data=data)
        items.append(it)
        return it

    subjects = rng.sample(pool(names, SUBJECTS), rng.randint(3, 5))
    for subj in subjects:
        cid = next_id = next_id + rng.randint(2, 9)
        course = Item(id=cid, section="settings", course_id=cid, position=rng.random(), data={
            "name": f"{subj} {rng.choice([101, 110, 201, 220, 301])}",
            "code": f"{subj[:4].upper()}-{rng.randint(100, 499)}",
            "visibility": rng.choice(VISIBILITY), "start_date": f"2026-0{rng.randint(1, 9)}-01",
            "syllabus": "Weekly readings and a final project.",
        })  # fmt: skip
        items.append(course)
        roster = rng.sample(users[1:], rng.randint(4, 7))
        for u in roster:
            add("people", cid, {"name": u.name, "role": "Student"})
        titles = title_pool(rng, 24, used, names)
        for _ in range(rng.randint(2, 4)):
            add("announcements", cid, {"title": titles.pop(), "message": "Please read this."})
        for _ in range(rng.randint(2, 4)):
            add("discussions", cid, {"title": titles.pop(), "message": "Share your thoughts."})
        for _ in range(rng.randint(2, 4)):
            due = f"2026-1{rng.randint(0, 2)}-{rng.randint(10, 28)}"
            add("assignments", cid, {"name": titles.pop(), "points": rng.choice([10, 20, 50]),
                                     "due_at": due})  # fmt: skip
        for _ in range(rng.randint(2, 3)):
            add("pages", cid, {"title": titles.pop(), "body": "Course notes."})
        for _ in range(rng.randint(2, 3)):
            add("modules", cid, {"name": f"Week {rng.randint(1, 14)}: {titles.pop()}"})
        for _ in range(rng.randint(2, 3)):
            choices = rng.sample(QUIZ_CHOICES, 4)
            add("quizzes", cid, {"title": titles.pop(), "time_limit": 20, "choices": choices,
                                 "question": "Which answer fits the reading best?"})  # fmt: skip
        for _ in range(rng.randint(2, 3)):
            add("groups", cid, {"name": f"Team {titles.pop()}"})
    add("profile", None, {"display_name": me.name, "time_zone": rng.choice(TIME_ZONES),
                          "language": LANGUAGES[0], "email_notifications": False,
                          "bio": "", "pronouns": rng.choice(PRONOUNS)})  # fmt: skip
    titles = title_pool(rng, 6, used, names)
    for _ in range(rng.randint(2, 3)):
        add("calendar", None, {"title": titles.pop(), "date": "2026-11-0" + str(rng.randint(1, 9))})
    for _ in range(rng.randint(2, 3)):
        add("inbox", None, {"recipient": rng.choice(users[1:]).name, "subject": titles.pop(),
                            "body": "Hello."})  # fmt: skip
    for it in items:
        if it.section != "settings":
            it.position = rng.random()  # list order differs between seeds
    nav = [s.key for s in COURSE_SECTIONS]
    rng.shuffle(nav)
    show_banner = rng.random() < 0.5 if banner is None else banner
    layout = Layout(nav_order=nav, banner=rng.choice(BANNERS) if show_banner else "")
    return World(seed=seed, names=names, me=me, users=users, items=items, layout=layout)
