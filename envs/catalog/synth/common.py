"""Pieces every family renderer shares: prose per school, requirement text, news decoys."""

from __future__ import annotations

import random

from envs.catalog.synth.prose import Prose
from envs.catalog.synth.school import School, SCourse, SProgram
from envs.catalog.synth.site import Site, esc


def prose_for(school: School) -> tuple[Prose, dict[str, str]]:
    """The school's house style and each course's prerequisite sentence (fixed per seed)."""
    rng = random.Random(f"prose:{school.family}:{school.seed}")
    p = Prose(rng, carry_over=rng.random() < 0.5)
    return p, {c.id: p.clause(c.prereq) for c in school.courses()}


def units_text(c: SCourse) -> str:
    u = int(c.units) if c.units == int(c.units) else c.units
    return f"{u} Unit{'s' if u != 1 else ''}"


def requirement_lines(p: Prose, prog: SProgram) -> list[tuple[str, str]]:
    return [(label, p.node(node) + ".") for label, node in prog.groups]


def ge_line(cat: tuple[str, str, int, list[str]]) -> str:
    _id, _name, k, courses = cat
    return f"Complete {k} course{'s' if k > 1 else ''} from: {', '.join(courses)}."


def news(site: Site, school: School, prefix: str, n: int = 6) -> None:
    """Decoy pages: campus news that mention courses in passing but publish no catalog record."""
    rng = random.Random(f"news:{school.seed}")
    urls = [f"{prefix}/{2025 - i // 3}-{i:02d}.html" for i in range(n)]
    ids = [c.id for c in school.courses()]
    for i, url in enumerate(urls):
        site.page(url)
        nxt = site.a(urls[(i + 1) % n], "Next story")
        body = (
            f"<h1>Campus news #{i + 1}</h1><p>Students from {esc(rng.choice(ids))} presented "
            f"their projects at the fair.</p><p>{nxt}</p>"
        )
        site.html(url, f"News {i + 1}", body)
    site.page(prefix + "/")
    lis = "".join(f"<li>{site.a(u, f'Story {i + 1}')}</li>" for i, u in enumerate(urls))
    site.html(prefix + "/", "News", f"<h1>Campus news</h1><ul>{lis}</ul>")
