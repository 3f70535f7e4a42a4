"""Vertex-to-action instructions: OdoBot Section IV, Table III (Click, Click*, data entry, ...).

Click: the vertex's element (re-located if it moved). Click*: a dynamicXpath vertex, the
element chosen by an option prompt among the live container's children. Data entry and rich
text: a value prompt, then typing. Select and radio: an option prompt among the live options.
Checkbox: a yes/no prompt. Every action runs through the executor as an Action AST.
"""

from __future__ import annotations

from typing import Any

from contracts.actions import ActionAST, ClickAction, TypeAction
from contracts.secrets import SECRET_REF
from odobot.capture import Recorder
from odobot.locate import container_options, element_info, relocate
from odobot.prompts import PromptLog, check_prompt, option_names, option_prompt, value_prompt

_SCROLL_JS = """(xp) => { const el = document.evaluate(xp, document, null,
  XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  if (el) el.scrollIntoView({block: 'center', behavior: 'instant'}); return !!el; }"""


class ActError(RuntimeError):
    """A vertex's action could not be carried out on the live page."""


def _label_for(rec: Recorder, xpath: str) -> int:
    for attempt in range(2):
        rec.observe()
        snap = rec.executor._snap
        if snap is not None:
            for label, xp in snap.xpaths.items():
                if xp == xpath:
                    return label
        if attempt == 0:
            rec.page.evaluate(_SCROLL_JS, xpath)  # off-screen elements get no label
    raise ActError(f"element {xpath} has no executor label (hidden or covered)")


def _choose(log: PromptLog, task: str, opts: list[dict[str, Any]], shown: str) -> int:
    names = option_names([o["text"] or o["attrs"].get("value", "") for o in opts])
    ans = log.ask(option_prompt(task, [o["html"] for o in opts], names, shown))
    if ans not in names:
        raise ActError(f"option prompt answered {ans!r}, not one of {len(opts)} options")
    return names.index(ans)


def _secret_ref(data: dict[str, Any]) -> str | None:
    """The one secret reference every demonstration typed here (a password), else None: the
    executor types the secret from its store, so the field needs no prompt and no model."""
    seen = set((data.get("free") or {}).get("value", []))
    ref = next(iter(seen)) if len(seen) == 1 else ""
    return ref if SECRET_REF.fullmatch(ref) else None


def perform(rec: Recorder, log: PromptLog, vid: str, data: dict[str, Any], task: str) -> bool:
    """Carry out one user-event vertex; returns whether an element had to be re-located."""
    kind = data["kind"]
    fixed = data["fixed"]
    dyn = data.get("dynamic")
    if kind == "click" and dyn:
        opts, moved = container_options(rec.page, dyn["prefix"], dyn["tag"], dyn["suffix"])
        if not opts:
            raise ActError(f"container {dyn['prefix']} of vertex {vid} not found on the page")
        pick = opts[_choose(log, task, opts, data["text"])]
        rec.execute(ActionAST(action=ClickAction(target=_label_for(rec, pick["xpath"]))))
        return moved
    if kind == "radio":
        first = fixed["xpaths"][0]
        xp, moved = relocate(rec.page, first, "input", "", data["attrs"], "radio")
        info = element_info(rec.page, xp) if xp else None
        if info is None:
            raise ActError(f"radio group of vertex {vid} not found")
        group = [element_info(rec.page, x) for x in info["group"]]
        opts = [o for o in group if o is not None]
        pick = opts[_choose(log, task, opts, "")]
        rec.execute(ActionAST(action=ClickAction(target=_label_for(rec, pick["xpath"]))))
        return moved
    tag = (
        (data["html"].split(" ", 1)[0].split(">", 1)[0].lstrip("<") or "*") if data["html"] else "*"
    )
    xp, moved = relocate(rec.page, fixed["xpath"], tag, data["text"], data["attrs"], kind)
    if xp is None:
        raise ActError(f"element of vertex {vid} ({kind} {data['text']!r}) is gone from the page")
    info = element_info(rec.page, xp) or {}
    html = info.get("html", "")
    if kind == "click":
        rec.execute(ActionAST(action=ClickAction(target=_label_for(rec, xp))))
    elif kind in ("input", "richtext"):
        value = _secret_ref(data)
        if value is None and info.get("attrs", {}).get("type") == "password":
            # Secrets never reach a prompt: no model is ever asked for a password.
            raise ActError(f"vertex {vid} asks for a password no demonstration named as a secret")
        if value is None:
            value = log.ask(value_prompt(task, html, info))
        if not value:
            raise ActError(f"no value for field {html[:80]}")
        rec.execute(ActionAST(action=TypeAction(target=_label_for(rec, xp), text=value)))
    elif kind == "select":
        opts = [o for o in info.get("options", []) if o and not o.endswith("...")]
        labels = [{"html": f"<option>{o}</option>", "text": o, "attrs": {}} for o in opts]
        choice = opts[_choose(log, task, labels, "")]
        rec.execute(ActionAST(action=TypeAction(target=_label_for(rec, xp), text=choice)))
    elif kind == "checkbox":
        if log.ask(check_prompt(task, html, info)).lower() == "yes":
            rec.execute(ActionAST(action=ClickAction(target=_label_for(rec, xp))))
    else:
        raise ActError(f"vertex {vid} has no action for kind {kind}")
    return moved
