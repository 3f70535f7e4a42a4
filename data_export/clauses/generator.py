"""Seeded synthetic prerequisite prose: KnowPlan, "Deterministic-first parsing" (training data).

The clause model is trained on prose no real school's prerequisite strings went into: a
generator of catalog "families", each a house style (its lead-ins, connectives, consent and
standing phrasings, how it prints a course, its typos) drawn from the phrase pools in
phrases.yaml. A sample is one of

- `segment`: one requirement as a sentence or ";"-part states it (what the grammar hands the
  model when it cannot type it): course logic, grades, concurrency, standing in prose,
  placement, "or equivalent", counts of courses in an area, openings restricted to a major, named
  requirements, a trailing consent alternative;
- `none`: a sentence that states no requirement (offering schedules, what the course counts
  toward, fees, repeat and credit rules, advice), whose answer is null;
- `string`: a whole prerequisite string, lead-in, requirement sentences and such sentences
  mixed, the clause being every requirement sentence's node together;
- `leaf` (only with `leaf_share`): one leaf on its own, what the grammar's partial parse
  (catalogbrowse/prereq/holes.py) hands the model.

Families 0-11 train; families 12-14 are HELD OUT: they use only the held-out quarter of every
pool (and of the subjects), so the eval split is prose in phrasings and subjects training never
saw. Same seed, same output.
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from data_export.clauses.compose import HOLE_WEIGHTS, Composer
from planner.clause_ast import AllOfNode, Clause, span_violations
from planner.clause_ids import identifier_enum

PHRASES = Path(__file__).with_name("phrases.yaml")
TRAIN_FAMILIES = tuple(range(12))
HELD_OUT_FAMILIES = (12, 13, 14)
SAMPLE_KINDS = ("segment", "none", "string")
_KIND_WEIGHTS = (0.58, 0.16, 0.26)
_NOT_POOLS = ("subjects", "token_styles", "typos", "terms", "years", "fees", "languages",
              "prognames", "ge_codes")  # fmt: skip


@functools.cache
def phrases() -> dict[str, Any]:
    return yaml.safe_load(PHRASES.read_text())


def held_out_entry(index: int, size: int) -> bool:
    """Whether entry `index` of a pool of `size` belongs to the held-out families only."""
    return size >= 4 and index % 4 == 3


def _split(pool: list[Any], held: bool) -> list[Any]:
    if len(pool) < 4:
        return list(pool)
    return [x for i, x in enumerate(pool) if held_out_entry(i, len(pool)) == held]


def subject_names(held: bool | None = None) -> dict[str, str]:
    """code -> department name of the generator's subjects (all, or one side of the split)."""
    items = list(phrases()["subjects"].items())
    if held is None:
        return dict(items)
    return dict(_split(items, held))


class Family:
    """A catalog's house style: the phrasings it prefers, its subjects and token habits."""

    def __init__(self, fid: int) -> None:
        self.id = fid
        self.held = fid in HELD_OUT_FAMILIES
        self.P = phrases()
        rng = random.Random(f"clause-family:{fid}")
        self.allowed: dict[str, list[str]] = {}
        self.preferred: dict[str, list[str]] = {}
        for name, pool in self.P.items():
            if name in _NOT_POOLS:
                continue
            allowed = _split(pool, self.held)
            self.allowed[name] = allowed
            self.preferred[name] = rng.sample(allowed, k=min(len(allowed), rng.randint(1, 3)))
        names = subject_names(self.held)
        self.subjects = rng.sample(sorted(names.items()), k=min(8, len(names)))
        self.names = names
        self.names_all = [n for _c, n in self.subjects]
        self.ge_codes = _split(self.P["ge_codes"], self.held)
        # Most tokens canonical; each family has one or two other habits.
        habits = rng.sample([s for s in self.P["token_styles"] if s != "canonical"], k=2)
        self.token_weights = {"canonical": 0.7, habits[0]: 0.2, habits[1]: 0.1}
        self.typo_rate = rng.choice([0.0, 0.0, 0.1, 0.2])

    def pick(self, rng: random.Random, pool: str) -> str:
        """A phrasing: the family's preferred ones most of the time, any allowed one else."""
        if rng.random() < 0.7:
            return rng.choice(self.preferred[pool])
        return rng.choice(self.allowed[pool])

    def token_style(self, rng: random.Random) -> str:
        styles = list(self.token_weights)
        return rng.choices(styles, weights=[self.token_weights[s] for s in styles])[0]


@dataclass(frozen=True)
class GeneratedClause:
    template_id: str  # hash of the canonical clause: samples of one AST share it
    span: str
    clause: Clause
    family: int
    kind: str  # segment | none | string | leaf
    style: tuple[str, ...] = field(default_factory=tuple)


def template_id(clause: Clause) -> str:
    return "clause-" + hashlib.sha256(clause.to_json().encode()).hexdigest()[:16]


def _sentence(text: str, rng: random.Random, capital: float = 0.6) -> str:
    if text and rng.random() < capital:
        text = text[0].upper() + text[1:]
    return text


def _typo(text: str, rng: random.Random, typos: list[list[str]]) -> tuple[str, str | None]:
    for k in rng.sample(range(len(typos)), k=len(typos)):
        pattern, repl = typos[k]
        hits = list(re.finditer(pattern, text))
        if hits:
            m = rng.choice(hits)
            return text[: m.start()] + repl + text[m.end() :], f"typo:{k}"
    return text, None


def sample(rng: random.Random, fam: Family, kind: str | None = None) -> GeneratedClause:
    """One span of `kind` (drawn when None) in family `fam`'s style."""
    kind = kind or rng.choices(SAMPLE_KINDS, weights=_KIND_WEIGHTS)[0]
    comp = Composer(rng, fam)
    style = [f"kind:{kind}"]
    if kind == "none":
        pool = rng.random() < 0.08
        text = fam.pick(rng, "no_prerequisite") if pool else comp.no_requirement()
        span, node = _sentence(text, rng), None
    elif kind == "leaf":
        p = comp.leaf(HOLE_WEIGHTS)
        span, node = _sentence(p.text, rng, 0.3), p.node
    elif kind == "segment":
        p = comp.requirement_span()
        span, node = _sentence(p.text, rng, 0.35), p.node
        if rng.random() < 0.25:
            span += "."
    else:
        reqs = [comp.requirement_span() for _ in range(rng.choice([1, 1, 1, 1, 2]))]
        if rng.random() < 0.08:
            reqs = []
        k = rng.choice([0, 1, 1, 2]) if reqs or rng.random() < 0.6 else 0
        nones = list(dict.fromkeys(comp.no_requirement() for _ in range(k)))
        if not reqs and not nones:
            nones = [fam.pick(rng, "no_prerequisite")]
        sentences = [r.text for r in reqs]
        join = ". " if rng.random() < 0.8 else "; "
        body = join.join(_sentence(s, rng, 0.5) for s in sentences)
        tail = ". ".join(_sentence(s, rng, 0.9) for s in nones)
        lead = fam.pick(rng, "lead_in")
        span = lead + (body + (". " if body and tail else "") + tail).strip()
        if not span.endswith("."):
            span += "."
        nodes = [r.node for r in reqs]
        node = None if not nodes else nodes[0] if len(nodes) == 1 else AllOfNode(items=nodes)
        style.append(f"sentences:{len(reqs) + len(nones)}")
    if fam.typo_rate and rng.random() < fam.typo_rate:
        span, tag = _typo(span, rng, fam.P["typos"])
        if tag:
            style.append(tag)
    clause = Clause(prerequisite=node)
    return GeneratedClause(template_id(clause), span, clause, fam.id, kind, tuple(style))


def generate(
    n: int, seed: int, families: tuple[int, ...] = TRAIN_FAMILIES, leaf_share: float = 0.0
) -> list[GeneratedClause]:
    """`n` samples over `families` (round-robin), each span-constrained: every course its clause
    names is in the span's identifier enum and every text it quotes is in the span (a sample that
    misses one is redrawn). A `leaf_share` of them are single leaves (kind "leaf")."""
    if n < 0 or not families:
        raise ValueError("n must be >= 0 and families non-empty")
    rng = random.Random(seed)
    fams = [Family(f) for f in families]
    subjects = {name: code for code, name in subject_names().items()}
    out: list[GeneratedClause] = []
    seen: set[str] = set()
    while len(out) < n:
        kind = "leaf" if leaf_share and rng.random() < leaf_share else None
        g = sample(rng, fams[len(out) % len(fams)], kind)
        ids = identifier_enum(g.span, subjects)
        # A typo can land inside a requirement's text ("200yards"): redrawn like a lost course.
        if g.span in seen or span_violations(g.clause, ids, g.span, subjects):
            continue
        seen.add(g.span)
        out.append(g)
    return out
