"""MiniWoB++ as a WebTask: the real task pages from the `miniwob` wheel, served on 127.0.0.1."""

from __future__ import annotations

import contextlib
import re
import threading
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from contracts.secrets import SECRET_FIELD, secret_ref
from envs.base import TaskSetup, TaskStatus, WebTask
from envs.server import StaticServer

# Long enough that a slow policy never hits the page's own timeout; success is scored on
# the raw reward, so the time decay this also slows does not matter.
DEFAULT_EPISODE_MAX_MS = 600_000

# One round trip in the common case: start, and hand back the utterance when the task is
# ready at once; "not-loaded" sends setup to (re)load the page, "pending" to wait for ready.
_START_JS = """([seed, maxMs]) => {
  if (typeof core === 'undefined' || core.cover_div === null) return 'not-loaded';
  Math.seedrandom(seed);
  core.EPISODE_MAX_TIME = maxMs;
  core.startEpisodeReal();
  if (!WOB_TASK_READY) return 'pending';
  const u = core.getUtterance();
  return (u && typeof u === 'object') ? {utterance: u.utterance, fields: u.fields || null}
                                       : {utterance: u, fields: null};
}"""
_PAGE_READY_JS = "() => typeof core !== 'undefined' && core.cover_div !== null"
_UTTERANCE_JS = """() => { const u = core.getUtterance();
  return (u && typeof u === 'object') ? {utterance: u.utterance, fields: u.fields || null}
                                       : {utterance: u, fields: null}; }"""
# A document where no episode runs (e.g. `back` reloaded the task page from history) has no
# reward globals: report it as an unscored, finished episode instead of a crash.
_STATUS_JS = """() => (typeof WOB_DONE_GLOBAL === 'undefined' ?
  {reward: 0, raw: 0, reason: 'no episode is running on this page', done: true} :
  {reward: WOB_REWARD_GLOBAL, raw: WOB_RAW_REWARD_GLOBAL,
   reason: WOB_REWARD_REASON, done: WOB_DONE_GLOBAL})"""
# Stop the episode timer without scoring, so a torn-down page cannot end on its own later.
_STOP_JS = """() => { if (typeof core !== 'undefined' && core.EP_TIMER !== null) {
  clearTimeout(core.EP_TIMER); core.EP_TIMER = null; core.clearTimer(); } }"""


# login-user, login-user-popup and enter-password state the password in their utterance.
_PASSWORD_IN_UTTERANCE = re.compile(r'\bpassword "(?P<password>[^"]+)"', re.I)


@cache
def miniwob_html_root() -> Path:
    """The wheel's html/ folder; task pages load ../core/core.js, so it is served whole."""
    root = Path(str(resources.files("miniwob").joinpath("html")))
    if not (root / "miniwob").is_dir():
        raise FileNotFoundError(f"miniwob task pages not found under {root}")
    return root


@cache
def available_tasks() -> tuple[str, ...]:
    """Every MiniWoB++ task name the installed wheel ships (file stems of html/miniwob)."""
    return tuple(sorted(p.stem for p in (miniwob_html_root() / "miniwob").glob("*.html")))


class MiniWoBServer(StaticServer):
    def __init__(self) -> None:
        super().__init__(miniwob_html_root())


_shared: MiniWoBServer | None = None
_shared_lock = threading.Lock()


def shared_miniwob_server() -> MiniWoBServer:
    """One process-wide server, started on first use (daemon thread, dies with the process)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = MiniWoBServer().start()
        return _shared


class MiniWoBTask(WebTask):
    """One MiniWoB++ task; `setup(page, seed)` starts a seeded episode, `validate` reads the reward.

    With `reuse_page=True` (default) a page already showing this task is not reloaded: the
    episode restarts by re-running the page's own start code, as the miniwob package does
    itself. `reload_every` forces a fresh load every n episodes to bound leaked page state.
    """

    def __init__(
        self,
        task_name: str,
        *,
        base_url: str | None = None,
        episode_max_ms: int = DEFAULT_EPISODE_MAX_MS,
        reuse_page: bool = True,
        reload_every: int = 0,
        ready_timeout_ms: float = 10_000,
    ) -> None:
        if task_name not in available_tasks():
            raise ValueError(f"unknown MiniWoB task {task_name!r}; see available_tasks()")
        self.task_name = task_name
        self._base_url = base_url.rstrip("/") if base_url else None
        self.episode_max_ms = episode_max_ms
        self.reuse_page = reuse_page
        self.reload_every = reload_every
        self.ready_timeout_ms = ready_timeout_ms
        self.episodes = 0

    @property
    def url(self) -> str:
        base = self._base_url or shared_miniwob_server().url
        return f"{base}/miniwob/{self.task_name}.html"

    def _needs_load(self, page: Any) -> bool:
        if not self.reuse_page or page.url != self.url:
            return True
        return bool(self.reload_every and self.episodes % self.reload_every == 0)

    def _load(self, page: Any) -> None:
        page.goto(self.url, wait_until="load", timeout=self.ready_timeout_ms)
        page.wait_for_function(_PAGE_READY_JS, timeout=self.ready_timeout_ms)

    def setup(self, page: Any, seed: int) -> TaskSetup:
        if self._needs_load(page):
            self._load(page)
        args = [seed, self.episode_max_ms]
        try:
            u = page.evaluate(_START_JS, args)
        except Exception:  # the reused page died or navigated mid-call: load it afresh
            u = "not-loaded"
        if u == "not-loaded":
            self._load(page)
            u = page.evaluate(_START_JS, args)
        if u == "pending":
            # Some tasks build their problem asynchronously and flag readiness themselves.
            page.wait_for_function("() => WOB_TASK_READY", timeout=self.ready_timeout_ms)
            u = page.evaluate(_UTTERANCE_JS)
        self.episodes += 1
        info: dict[str, Any] = {"task": self.task_name, "seed": seed, "url": self.url}
        fields = dict(u["fields"] or {})
        # A password the utterance hands over is a secret: the agent sees its reference.
        secrets = {k: str(v) for k, v in fields.items() if SECRET_FIELD.search(k) and v}
        m = _PASSWORD_IN_UTTERANCE.search(str(u["utterance"]))
        if m is not None:
            secrets.setdefault("password", m.group("password"))
        if fields:
            info["fields"] = {k: secret_ref(k) if k in secrets else v for k, v in fields.items()}
        return TaskSetup(goal=str(u["utterance"]), info=info, secrets=secrets)

    def validate(self, page: Any) -> TaskStatus:
        for attempt in range(3):
            if page.url.split("#")[0] != self.url:
                # A search, back or link left the task page: the episode cannot score any more.
                return TaskStatus(done=True, reason=f"left the task page for {page.url}")
            try:
                s = page.evaluate(_STATUS_JS)
                break
            except Exception as exc:
                # A navigation in flight destroys the JS context; let it land, then look again.
                if attempt == 2 or "context" not in str(exc).lower():
                    raise
                with contextlib.suppress(Exception):
                    page.wait_for_load_state("domcontentloaded", timeout=self.ready_timeout_ms)
        return TaskStatus(
            reward=float(s["reward"] or 0.0),
            raw_reward=float(s["raw"] or 0.0),
            done=bool(s["done"]),
            reason=str(s["reason"] or ""),
        )

    def teardown(self, page: Any) -> None:
        # A closed or navigated-away page has nothing left to stop.
        with contextlib.suppress(Exception):
            page.evaluate(_STOP_JS)

    def site_key(self) -> str:
        # Each task page is its own local "site": tasks share no server-side state.
        return f"miniwob/{self.task_name}"
