"""The LMS's 60 task templates, their instances and checks: OdoBot Section V (task selection).

Each template names one section action (its side effect is one REST call) and the ways a user
might ask for it; an instance fills one phrasing's parameters from a world, so what an agent is
given is a sentence with the names and values inside it. A check reads the database (never the
page): the row created, the field changed, the record added, the flag set or the row deleted.
"""

from __future__ import annotations

import random
import string
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from contracts.secrets import secret_ref
from envs.lms.sections import STATIC_OPTIONS, Section, section
from envs.lms.world import ADJ, NOUN, QUIZ_CHOICES, World, person_name, pool, title

Phrasings = Literal["train", "heldout"]


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


class TaskTemplate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    section: str
    action: str
    # Phrasings for demonstrations and training (the first is the demonstrated one) and the
    # ones only held-out instances use.
    texts: tuple[str, ...] = Field(min_length=1)
    heldout_texts: tuple[str, ...] = Field(min_length=1)
    checks: dict[str, bool] = Field(default_factory=dict)  # checkbox fields a variant turns on

    @model_validator(mode="after")
    def _same_values(self) -> TaskTemplate:
        want = placeholders(self.texts[0])
        for text in self.texts + self.heldout_texts:
            if placeholders(text) != want:
                raise ValueError(
                    f"phrasing {text!r} names {sorted(placeholders(text))}, the first one "
                    f"{sorted(want)}: every phrasing must carry the same values"
                )
        return self


class TaskInstance(BaseModel):
    """What the agent is given (text) and what an oracle answerer may read (params)."""

    model_config = ConfigDict(extra="forbid")
    task_id: str
    template_id: str
    text: str
    params: dict[str, str]
    phrasing: str = ""  # which wording: "train:1", "heldout:0"


TEMPLATE_FILE = Path(__file__).with_name("task_templates.yaml")
# Values the application itself offers on every world (select options, quiz answers, a tick):
# every instance may name them, so they say nothing about which instance a text came from.
CONSTANTS = frozenset(
    {v for opts in STATIC_OPTIONS.values() for v in opts} | set(QUIZ_CHOICES) | {"yes", "no"}
)
CREDENTIALS = ("username", "password")


def instance_values(inst: TaskInstance) -> set[str]:
    """What identifies an instance besides its text: its parameter values, credentials and the
    application's constants left out."""
    return {v for k, v in inst.params.items() if k not in CREDENTIALS and v not in CONSTANTS}


def load_templates(path: Path = TEMPLATE_FILE) -> tuple[TaskTemplate, ...]:
    """The template table; a bad entry is named with its index and field."""
    raw = yaml.safe_load(path.read_text()) or {}
    out = []
    for i, row in enumerate(raw.get("templates", [])):
        try:
            out.append(TaskTemplate.model_validate(row))
        except ValidationError as e:
            err = e.errors()[0]
            field = ".".join(map(str, err["loc"]))
            raise ValueError(f"{path}: templates[{i}].{field}: {err['msg']}") from None
    return tuple(out)


TEMPLATES = load_templates()
BY_ID = {t.id: t for t in TEMPLATES}


def _fresh(rng: random.Random, avoid: set[str], make: Any) -> str:
    for _ in range(200):
        v = str(make())
        if v not in avoid:
            avoid.add(v)
            return v
    raise RuntimeError("no fresh parameter value left")


def _date(rng: random.Random) -> str:
    return f"2027-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _sentence(rng: random.Random, world: World) -> str:
    adj, noun = pool(world.names, ADJ), pool(world.names, NOUN)
    return f"{rng.choice(adj)} notes on {rng.choice(noun).lower()} {rng.randint(1, 999)}"


def _item_title(sec: Section, row: Any) -> str:
    return str(row.data.get(sec.title_field, ""))


def instantiate(
    tpl: TaskTemplate,
    world: World,
    rng: random.Random,
    avoid: set[str],
    task_id: str,
    which: Phrasings = "train",
    variant: int = 0,
) -> TaskInstance:
    """Fill one phrasing of `tpl` from `world`; values in `avoid` (e.g. every value a training
    instance used) are not used."""
    sec, act = section(tpl.section), section(tpl.section).action(tpl.action)
    # The password is named, never written: the executor types it from the LMS's secret store.
    params: dict[str, str] = {"username": world.me.login, "password": secret_ref("password")}
    course = None
    if sec.scope == "course":
        course = rng.choice(world.courses())
        params["course"] = str(course.data["name"])
    cid = course.id if course else None
    item = None
    if act.on_item and not sec.singleton:
        pool = [i for i in world.items if i.section == sec.key and i.course_id == cid]
        item = rng.choice(pool)
        params["item"] = _item_title(sec, item)
    for f in act.fields:
        if f.kind == "checkbox":
            params[f.name] = "yes" if tpl.checks.get(f.name) else "no"
        elif f.kind in ("select", "radio"):
            opts = _options(f.options, world, cid, item)
            fresh = [o for o in opts if o not in avoid] or opts
            params[f.name] = rng.choice(fresh)
        elif f.kind == "number":
            params[f.name] = _fresh(rng, avoid, lambda: rng.randint(5, 95))
        elif f.kind == "date":
            params[f.name] = _fresh(rng, avoid, lambda: _date(rng))
        elif f.name in ("url", "link_url"):
            slug = "".join(rng.choices(string.ascii_lowercase, k=6))
            params[f.name] = _fresh(rng, avoid, lambda s=slug: f"https://example.edu/{s}")
        elif f.name == "name" and sec.key == "people":
            params[f.name] = person_name(rng, avoid, world.names)
        elif f.name == "code":
            params[f.name] = _fresh(rng, avoid, lambda: f"X{rng.randint(100, 999)}")
        elif f.kind == "richtext" or f.name == "comment":
            params[f.name] = _fresh(rng, avoid, lambda: _sentence(rng, world))
        else:
            params[f.name] = _fresh(rng, avoid, lambda: title(rng, world.names, 999))
    texts = tpl.texts if which == "train" else tpl.heldout_texts
    k = variant % len(texts)
    return TaskInstance(
        task_id=task_id,
        template_id=tpl.id,
        text=texts[k].format(**params),
        params=params,
        phrasing=f"{which}:{k}",
    )


def _options(kind: str, world: World, cid: int | None, item: Any) -> list[str]:
    if kind in STATIC_OPTIONS:
        return list(STATIC_OPTIONS[kind])
    if kind == "quiz":
        return list(item.data["choices"])
    if kind == "people":
        return [u.name for u in world.users if u.id != world.me.id]
    sec = section({"students": "people", "pages": "pages", "assignments": "assignments"}[kind])
    return [_item_title(sec, i) for i in world.items if i.section == sec.key and i.course_id == cid]


def make_instances(
    world: World,
    seed: int,
    avoid: set[str] | None = None,
    prefix: str = "t",
    which: Phrasings = "train",
    variant: int = 0,
) -> list[TaskInstance]:
    """One instance of every template on `world` (the paper: one instance per template), each
    in phrasing `variant` of its `which` list (variant 0 of "train" is the demonstrated one)."""
    rng = random.Random(seed)
    avoid = avoid if avoid is not None else set()
    return [
        instantiate(t, world, rng, avoid, f"{prefix}-{t.id}", which, variant) for t in TEMPLATES
    ]
