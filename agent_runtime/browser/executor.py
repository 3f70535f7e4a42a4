"""Executor: WebRider Appendix H, Table 42 (executor row) and Table 46 (fallback semantics)."""

from __future__ import annotations

import base64
import contextlib
import time
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from agent_runtime.browser.events import EventLog
from agent_runtime.browser.som import (
    PAGE_TEXT_CHARS,
    PageSnapshot,
    draw_labels,
    label_page,
    selector_for,
)
from contracts.actions import (
    ActionAST,
    BackAction,
    ClickAction,
    MapsAction,
    ScrollAction,
    SearchAction,
    TypeAction,
    WaitAction,
)
from contracts.observation import ElementLabel, Observation
from contracts.search import SearchProvider
from contracts.secrets import SecretStore


class ExecResult(BaseModel):
    """What happened to one Action AST: which branch ran, whether it worked, and why not."""

    model_config = ConfigDict(extra="forbid")
    executed: Literal["action", "fallback", "none"]
    ok: bool
    error: str | None = None
    primary_error: str | None = None
    elapsed_ms: float = 0.0


class ActionFailed(Exception):
    """The primary action cannot run (target gone, no history, no matching option)."""


# Choosing a <select> option by its visible label: exact, then case-insensitive, then
# substring. The change is announced with input+change events, as a user's pick would be.
_SELECT_JS = """(el, text) => {
  const norm = (s) => (s || '').replace(/\\s+/g, ' ').trim().toLowerCase();
  const opts = Array.from(el.options); const t = norm(text);
  const hit = opts.find((o) => o.text.trim() === text.trim())
    || opts.find((o) => norm(o.text) === t) || opts.find((o) => norm(o.value) === t)
    || opts.find((o) => norm(o.text).includes(t));
  if (!hit) return null;
  el.value = hit.value; hit.selected = true;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return hit.text;
}"""

# Scroll the element itself or its nearest scrollable ancestor by 80% of its height.
_SCROLL_EL_JS = """(el, sign) => {
  let n = el;
  while (n && n !== document.body && !(n.scrollHeight > n.clientHeight + 1 &&
         /(auto|scroll)/.test(getComputedStyle(n).overflowY))) n = n.parentElement;
  if (!n || n === document.body) { n = document.scrollingElement; }
  const y0 = n.scrollTop;
  n.scrollBy({top: sign * Math.max(40, n.clientHeight * 0.8), behavior: 'instant'});
  return n.scrollTop - y0;
}"""

# Fast click path: find the labeled element, bring it into view if needed, and check that
# it (or a descendant / its <label>) owns its center point. One round trip instead of
# Playwright's actionability waits (~35 ms of animation-frame polling per click).
_CLICK_POINT_JS = """(sel) => {
  const el = document.querySelector(sel);
  if (!el) return null;
  let r = el.getBoundingClientRect();
  if (r.bottom <= 0 || r.right <= 0 || r.top >= innerHeight || r.left >= innerWidth) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    r = el.getBoundingClientRect();
  }
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  const ok = !!hit && r.width > 0 && r.height > 0 && (el.contains(hit) ||
    (el.labels && Array.from(el.labels).some((l) => l.contains(hit))));
  return {x, y, ok};
}"""

_SCROLL_WIN_JS = """(sign) => { const y0 = window.scrollY;
  window.scrollBy({top: sign * window.innerHeight * 0.8, behavior: 'instant'});
  return window.scrollY - y0; }"""


@cache
def _access_detector() -> Any:
    """The guards' access-signal detector when that module exists, else None."""
    try:
        from agent_runtime.guards.access import detect_access_signal
    except ImportError:
        return None
    return detect_access_signal


def _short(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {msg[0] if msg else ''}"[:300]


class Executor:
    """Observes a page (set-of-mark labels + screenshot) and executes Action ASTs on it."""

    def __init__(
        self,
        page: Any,
        search_provider: SearchProvider | None = None,
        *,
        events: EventLog | None = None,
        record_events: bool = True,
        action_timeout_ms: float = 2000,
        nav_timeout_ms: float = 15000,
        page_text_chars: int = PAGE_TEXT_CHARS,
        async_screenshots: bool = True,
        secrets: SecretStore | None = None,
        secret_labels: tuple[str, ...] = (),
    ) -> None:
        self.page = page
        self.search = search_provider or SearchProvider.from_env()
        # The only holder of secret values on this side of the page: observations, events
        # and errors leave redacted, and `type` fills references in at execution time.
        self.secrets = secrets if secrets is not None else SecretStore()
        self.secret_labels = secret_labels
        self.events = events if events is not None else EventLog()
        self.events.redact = self.secrets.redact
        if record_events and self.events._page is None:
            self.events.attach(page)
        self.action_timeout_ms = action_timeout_ms
        self.nav_timeout_ms = nav_timeout_ms
        self.page_text_chars = page_text_chars
        self.status: int | None = None
        self._snap: PageSnapshot | None = None
        # Drawing labels + PNG re-encoding (~25 ms) runs on one worker thread (Pillow drops
        # the GIL), overlapping the next browser round trip; flush() waits for it.
        self._writer = (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="pw-shot")
            if async_screenshots
            else None
        )
        self._pending: list[Future[None]] = []
        self.screenshot_errors: list[str] = []
        self._cdp: Any = None
        page.on("response", self._on_response)

    def flush(self) -> None:
        """Wait until the last labeled screenshot is on disk."""
        pending, self._pending = self._pending, []
        for fut in pending:
            try:
                fut.result()
            except Exception as exc:
                self.screenshot_errors.append(_short(exc))

    def _capture_png(self) -> bytes:
        """Viewport PNG via CDP with optimizeForSpeed (faster zlib on Chromium's side and a
        faster decode on ours, ~15 ms less per step); Playwright's screenshot otherwise."""
        try:
            if self._cdp is None:
                self._cdp = self.page.context.new_cdp_session(self.page)
            data = self._cdp.send(
                "Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True}
            )["data"]
            return base64.b64decode(data)
        except Exception:
            self._cdp = None
            return self.page.screenshot(type="png", timeout=self.nav_timeout_ms)

    def close(self) -> None:
        self.flush()
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None
        self.events.detach()
        with contextlib.suppress(Exception):
            self.page.remove_listener("response", self._on_response)

    # ---- observation -------------------------------------------------------------------
    def _on_response(self, response: Any) -> None:
        # HTTP status of the main document: the last navigation response of the main frame.
        req = response.request
        if req.is_navigation_request() and req.frame.parent_frame is None:
            self.status = response.status

    def goto(self, url: str) -> int | None:
        try:
            resp = self.page.goto(url, timeout=self.nav_timeout_ms, wait_until="domcontentloaded")
        except Exception as exc:
            # The previous page's own script (a form's fetch, then location.assign) may still be
            # navigating on a loaded machine: let it land, then go where we were asked.
            if "interrupted by another navigation" not in str(exc):
                raise
            with contextlib.suppress(Exception):
                self.page.wait_for_load_state("domcontentloaded", timeout=self.nav_timeout_ms)
            resp = self.page.goto(url, timeout=self.nav_timeout_ms, wait_until="domcontentloaded")
        if resp is not None:
            self.status = resp.status
        return self.status

    def _snapshot(self) -> PageSnapshot:
        for attempt in range(3):
            try:
                return self._redacted(
                    label_page(self.page, self.page_text_chars, self.secret_labels)
                )
            except Exception as exc:
                # A navigation in flight destroys the JS context; wait for the new document.
                if attempt == 2 or "context" not in str(exc).lower():
                    raise
                self.page.wait_for_load_state("domcontentloaded", timeout=self.nav_timeout_ms)
        raise AssertionError("unreachable")

    def _redacted(self, snap: PageSnapshot) -> PageSnapshot:
        r = self.secrets.redact
        labels = [
            el.model_copy(
                update={"text": r(el.text), "value": r(el.value) if el.value else el.value}
            )
            for el in snap.labels
        ]
        return PageSnapshot(labels, snap.xpaths, r(snap.page_text), r(snap.title), r(snap.url))

    def observe(
        self, screenshot_path: Path | None = None, *, screenshot_ref: str | None = None
    ) -> Observation:
        """Label the page and (optionally) write the labeled PNG; never raises on page errors.

        `screenshot_ref` is what the observation records (e.g. a path relative to the trace
        directory); it defaults to `screenshot_path` itself.
        """
        try:
            snap = self._snapshot()
        except Exception as exc:
            self._snap = None
            url = self.secrets.redact(getattr(self.page, "url", ""))
            return Observation(
                url=url, status=self.status, error=self.secrets.redact(_short(exc))
            ).with_state_hash()
        self._snap = snap
        shot = None
        error = None
        if screenshot_path is not None:
            try:
                png = self._capture_png()
                path = Path(screenshot_path)
                # Writes queue on one thread in step order; only finished ones are dropped.
                self._pending = [f for f in self._pending if not f.done()]
                if len(self._pending) > 4:  # bound memory if the disk falls behind
                    self.flush()
                if self._writer is not None:
                    self._pending.append(
                        self._writer.submit(_write_labeled, png, snap.labels, path)
                    )
                else:
                    _write_labeled(png, snap.labels, path)
                shot = screenshot_ref if screenshot_ref is not None else str(path)
            except Exception as exc:
                error = f"screenshot: {_short(exc)}"
        obs = Observation(
            url=snap.url,
            title=snap.title,
            status=self.status,
            labels=snap.labels,
            page_text=snap.page_text,
            screenshot=shot,
            error=error,
        )
        detect = _access_detector()
        if detect is not None:
            obs.access_signal = detect(obs)
        return obs.with_state_hash()

    @property
    def last_labels(self) -> list[ElementLabel]:
        return self._snap.labels if self._snap else []

    # ---- execution ---------------------------------------------------------------------
    def execute(self, ast: ActionAST) -> ExecResult:
        """Run the action; if it fails, run the fallback (Table 46). Never raises."""
        r = self._execute(ast)
        redact = self.secrets.redact
        return r.model_copy(
            update={
                "error": redact(r.error) if r.error else r.error,
                "primary_error": redact(r.primary_error) if r.primary_error else None,
            }
        )

    def _execute(self, ast: ActionAST) -> ExecResult:
        t0 = time.perf_counter()
        try:
            self._run(ast.action)
            return ExecResult(executed="action", ok=True, elapsed_ms=_ms(t0))
        except Exception as exc:
            primary = _short(exc)
        try:
            self._run(ast.fallback)
            return ExecResult(
                executed="fallback", ok=True, primary_error=primary, elapsed_ms=_ms(t0)
            )
        except Exception as exc:
            return ExecResult(
                executed="none",
                ok=False,
                error=f"fallback: {_short(exc)}",
                primary_error=primary,
                elapsed_ms=_ms(t0),
            )

    def _run(self, a: Any) -> None:
        if isinstance(a, ClickAction):
            self._click(a.target)
        elif isinstance(a, TypeAction):
            self._type(a.target, a.text, a.submit)
        elif isinstance(a, ScrollAction):
            self._scroll(a.target, a.direction)
        elif isinstance(a, SearchAction):
            self.goto(self.search.search_url(a.query))
        elif isinstance(a, MapsAction):
            self.goto(self.search.maps_url(a.query, a.location))
        elif isinstance(a, BackAction):
            self._back()
        elif isinstance(a, WaitAction):
            self._wait(a.seconds)
        else:  # pragma: no cover - the grammar has exactly seven kinds
            raise ActionFailed(f"unknown action {type(a).__name__}")

    def _element(self, target: int) -> ElementLabel:
        el = None
        for cand in self.last_labels:
            if cand.label == target:
                el = cand
                break
        if el is None:
            raise ActionFailed(f"label {target} not in the last observation")
        return el

    def _record(self, action: str, target: int, el: ElementLabel, value: str | None) -> None:
        xpath = self._snap.xpaths.get(target, "") if self._snap else ""
        self.events.record_interaction(
            action=action,
            url=self._snap.url if self._snap else self.page.url,
            label=target,
            tag=el.tag,
            role=el.role,
            text=el.text,
            xpath=xpath,
            value=value,
        )

    def _click(self, target: int) -> None:
        el = self._element(target)
        sel = selector_for(target)
        pt = self.page.evaluate(_CLICK_POINT_JS, sel)
        if pt is None:
            raise ActionFailed(f"label {target} is gone from the page")
        if pt["ok"]:
            self.page.mouse.click(pt["x"], pt["y"])
        else:
            try:
                self.page.locator(sel).click(timeout=self.action_timeout_ms)
            except Exception as exc:
                # Present but not clickable by the locator (covered, never "stable"):
                # a plain mouse click at the observed box center, as a user would.
                if self.page.locator(sel).count() == 0:
                    raise ActionFailed(f"label {target} is gone from the page") from exc
                b = el.bbox
                self.page.mouse.click(b.x + b.width / 2, b.y + b.height / 2)
        kind = el.input_type if el.input_type in ("checkbox", "radio") else "click"
        self._record(kind, target, el, None)

    def _type(self, target: int, text: str, submit: bool) -> None:
        el = self._element(target)
        loc = self.page.locator(selector_for(target))
        # The one place a secret's value exists outside the page: the keystrokes' argument.
        real = self.secrets.resolve(text)
        if el.tag == "select":
            chosen = loc.evaluate(_SELECT_JS, real, timeout=self.action_timeout_ms)
            if chosen is None:
                raise ActionFailed(f"no option of select {target} matches {text!r}")
            self._record("select", target, el, self.secrets.redact(chosen))
        else:
            loc.fill(real, timeout=self.action_timeout_ms)
            self._record("type", target, el, text)
        if submit:
            loc.press("Enter", timeout=self.action_timeout_ms)

    def _scroll(self, target: int | str, direction: str) -> None:
        sign = -1 if direction == "up" else 1
        if target == "window":
            self.page.evaluate(_SCROLL_WIN_JS, sign)
            return
        self._element(int(target))
        loc = self.page.locator(selector_for(int(target)))
        loc.evaluate(_SCROLL_EL_JS, sign, timeout=self.action_timeout_ms)

    def _back(self) -> None:
        before = self.page.url
        resp = self.page.go_back(timeout=self.nav_timeout_ms, wait_until="domcontentloaded")
        if resp is None and self.page.url == before:
            raise ActionFailed("no history entry to go back to")
        if self.page.url == "about:blank" and before != "about:blank":
            # The blank start page of a new tab is not a page the agent visited: undo.
            self.page.go_forward(timeout=self.nav_timeout_ms, wait_until="domcontentloaded")
            raise ActionFailed("no history entry before the first page")
        if resp is not None:
            self.status = resp.status

    def _wait(self, seconds: float) -> None:
        t0 = time.perf_counter()
        ms = min(seconds, 5.0) * 1000
        # Still loading after the bound is fine: the wait itself is done.
        with contextlib.suppress(Exception):
            self.page.wait_for_load_state("load", timeout=ms)
        rest = ms - _ms(t0)
        if rest > 0:
            self.page.wait_for_timeout(rest)


def _write_labeled(png: bytes, labels: list[ElementLabel], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(draw_labels(png, labels))
    tmp.replace(path)  # readers never see a half-written PNG


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)
