"""Live trajectory capture around the executor: OdoBot Section III-A (the OdoX extension's job).

The executor already logs interactions (with XPath), location changes and non-GET requests;
the recorder completes them into Table II events: a filtered DOM snapshot and the element's
attribute-filtered HTML before each user action, rich-text vs plain data entry, radio groups,
normalized paths, and DOM effects reported by a MutationObserver as they happen.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from typing import Any

from agent_runtime.browser.events import InteractionEvent, LocationEvent, NetworkEvent
from agent_runtime.browser.executor import ExecResult, Executor
from contracts.actions import ActionAST, ClickAction, TypeAction
from contracts.observation import Observation
from contracts.secrets import SecretStore
from odobot.dom_js import (
    ELEMENT_INFO_JS,
    KEEP_ATTRS,
    OBSERVER_JS,
    SNAPSHOT_JS,
)
from odobot.events import ElementInfo, TrajEvent
from odobot.normalize import DEFAULT_RULES, PathRule, normalize_path

_KIND = {"click": "click", "select": "select", "checkbox": "checkbox", "radio": "radio"}


class Recorder:
    """Wraps one page's executor; `events` is the live trajectory since `begin()`."""

    def __init__(
        self,
        page: Any,
        *,
        rules: tuple[PathRule, ...] = DEFAULT_RULES,
        snapshots: bool = True,
        quiet_s: float = 0.12,
        secrets: SecretStore | None = None,
    ) -> None:
        self.page = page
        self.rules = rules
        self.take_snapshots = snapshots
        self.quiet_s = quiet_s
        self.executor = Executor(page, async_screenshots=False, secrets=secrets)
        self._dom: list[tuple[float, dict[str, list[str]]]] = []
        page.expose_function("__odoReport", self._on_dom)
        page.add_init_script(OBSERVER_JS)
        self.traj_id = "live"
        self.events: list[TrajEvent] = []
        self.snapshots: dict[str, str] = {}
        self._pending: dict[str, Any] | None = None

    def _on_dom(self, report: dict[str, list[str]]) -> None:
        self._dom.append((time.time(), report))

    def begin(self, traj_id: str) -> None:
        self.traj_id, self.events, self.snapshots = traj_id, [], {}
        self.executor.events.drain()
        self._dom.clear()

    # ---- acting ------------------------------------------------------------------------
    def goto(self, url: str) -> None:
        self.executor.goto(url)
        self.settle()

    def observe(self) -> Observation:
        return self.executor.observe()

    def xpath_of(self, label: int) -> str:
        snap = self.executor._snap
        return snap.xpaths.get(label, "") if snap else ""

    def element_info(self, xpath: str) -> ElementInfo | None:
        raw = self.page.evaluate(ELEMENT_INFO_JS, [xpath, list(KEEP_ATTRS)])
        if raw is None:
            return None
        raw.pop("xpath", None)
        return ElementInfo.model_validate(raw)

    def snapshot(self) -> str:
        html = str(self.page.evaluate(SNAPSHOT_JS))
        key = hashlib.blake2b(html.encode(), digest_size=8).hexdigest()
        self.snapshots.setdefault(key, html)
        return key

    def execute(self, ast: ActionAST) -> ExecResult:
        """Run one Action AST through the executor and record what it caused."""
        act = ast.action
        pending: dict[str, Any] | None = None
        if isinstance(act, ClickAction | TypeAction):
            xp = self.xpath_of(act.target)
            pending = {
                "t": time.time(),
                "xpath": xp,
                "info": self.element_info(xp) if xp else None,
                "snapshot": self.snapshot() if self.take_snapshots else "",
            }
        self._pending = pending
        res = self.executor.execute(ast)
        self.settle()
        return res

    def settle(self, max_s: float = 3.0) -> None:
        """Wait until no event has arrived for `quiet_s` (a fetch, a navigation, a re-render)."""
        t_end = time.time() + max_s
        seen = -1
        quiet_since = time.time()
        while time.time() < t_end:
            self.page.wait_for_timeout(40)
            n = len(self.executor.events) + len(self._dom)
            if n != seen:
                seen, quiet_since = n, time.time()
            elif time.time() - quiet_since >= self.quiet_s:
                break
        # A page mid-navigation settles on the next call.
        with contextlib.suppress(Exception):
            self.page.wait_for_load_state("domcontentloaded", timeout=3000)
        self._collect()

    # ---- completing events ---------------------------------------------------------------
    def _collect(self) -> None:
        raw: list[tuple[float, dict[str, Any]]] = []
        for ev in self.executor.events.drain():
            if isinstance(ev, InteractionEvent):
                raw.append(self._interaction(ev))
            elif isinstance(ev, LocationEvent):
                if ev.url.startswith("http"):
                    path = normalize_path(ev.url, self.rules)
                    raw.append((ev.t, {"kind": "location", "url": ev.url, "base_path": path}))
            elif isinstance(ev, NetworkEvent) and ev.resource_type in ("fetch", "xhr", "document"):
                path = normalize_path(ev.url, self.rules)
                raw.append(
                    (ev.t, {"kind": "api", "url": ev.url, "base_path": path, "method": ev.method})
                )
        for t, rep in self._dom:
            raw.append((t, {"kind": "dom_effect", **rep}))
        self._dom.clear()
        raw.sort(key=lambda p: p[0])
        for t, fields in raw:
            idx = len(self.events)
            self.events.append(TrajEvent(id=f"{self.traj_id}#{idx}", t=t, **fields))

    def _interaction(self, ev: InteractionEvent) -> tuple[float, dict[str, Any]]:
        pend = self._pending or {}
        self._pending = None
        info: ElementInfo | None = pend.get("info")
        kind = _KIND.get(ev.action, "input")
        if ev.action == "type" and info is not None and "contenteditable" in info.attrs:
            kind = "richtext"
        value = ev.value if ev.action in ("type", "select") else None
        if kind in ("checkbox", "radio"):
            value = "yes" if kind == "checkbox" else (info.attrs.get("value") if info else None)
        fields = {
            "kind": kind,
            "url": ev.url,
            "base_path": normalize_path(ev.url, self.rules),
            "xpath": pend.get("xpath") or ev.xpath,
            "text": ev.text,
            "element": info,
            "value": value,
            "snapshot": pend.get("snapshot", ""),
        }
        return float(pend.get("t", ev.t)), fields
