"""The application's own vocabularies: OdoBot Section IV (choosing the similar high-level task).

The paper lets an LLM pick, among the embedding's top 15, the trajectory that fits the
generalised task; an LLM knows that "as a Teacher" names a role, which the generalised text
("as a X") no longer says. What the model can know without one: the options of the selects a
demonstration filled in. Options that are the application's constants (roles, time zones,
languages) name a feature; options that are the world's data (people, assignment titles: the
texts of mined, dynamic entries elsewhere in the model) name nothing, so they are left out.
A task value that is one of a trajectory's constants is then evidence for that trajectory.
"""

from __future__ import annotations

import re

import networkx as nx
from selectolax.lexbor import LexborHTMLParser

from odobot.annotate import dynamic_clicks
from odobot.events import ElementInfo, Trajectory, event_of

# Unquoted capitalised runs after the first word: names and option values.
UNQUOTED_VALUE = re.compile(r"(?<!^)\b[A-Z][\w/.-]*(?:\s+[A-Z][\w/.-]*)*")
_QUOTED = re.compile(r'"[^"]*"')


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(".")


def select_options(el: ElementInfo) -> set[str]:
    """A select's option texts, less an empty-valued placeholder ("Choose...")."""
    placeholders = {
        _norm(o.text())
        for o in LexborHTMLParser(el.html).css("option")
        if o.attributes.get("value") == ""
    }
    return {_norm(o) for o in el.options if o.strip()} - placeholders


def entity_texts(g: nx.DiGraph, trajs: dict[str, Trajectory]) -> set[str]:
    """Texts of the clicks on mined, repeated entries: the world's data, not the app's."""
    texts = (event_of(trajs, inst).text for inst in dynamic_clicks(g))
    return {_norm(t) for t in texts if t.strip()}


def annotate_vocabularies(g: nx.DiGraph, trajs: dict[str, Trajectory]) -> None:
    """`g.graph["vocabularies"]`: per trajectory, the constant options its selects offered."""
    world = entity_texts(g, trajs)
    vocab: dict[str, list[str]] = {}
    for tid, tr in trajs.items():
        words: set[str] = set()
        for ev in tr.events:
            if ev.kind == "select" and ev.element is not None:
                options = select_options(ev.element)
                if not options & world:
                    words |= options
        vocab[tid] = sorted(words)
    g.graph["vocabularies"] = vocab


def task_values(task_text: str) -> set[str]:
    """The task's unquoted values (quoted ones are titles and names: the world's data)."""
    return {_norm(m.group(0)) for m in UNQUOTED_VALUE.finditer(_QUOTED.sub('"..."', task_text))}
