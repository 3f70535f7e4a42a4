"""Stale or not-ready pages -> a bounded wait: WebRider Table 45 (Recovery), Table 48 (STALE)."""

from __future__ import annotations

from contracts.observation import Observation

# Playwright / Chromium messages that mean "the page moved under us", not "the action is wrong".
_LOADING = (
    "navigation",
    "navigating",
    "loading",
    "not ready",
    "net::err_aborted",
    "err_network_changed",
    "timeout",
    "timed out",
)
_STALE = (
    "execution context was destroyed",
    "frame was detached",
    "detached",
    "stale",
    "element is not attached",
)


def stale_reason(obs: Observation) -> str | None:
    """ "loading" or "stale_state" when acting now would act on a page that is not there yet."""
    if obs.error:
        low = obs.error.lower()
        if any(m in low for m in _LOADING):
            return "loading"
        if any(m in low for m in _STALE):
            return "stale_state"
    st = obs.status
    # 1xx/3xx: the main document is mid-navigation; 502-504: the server says "try again".
    if st is not None and (st < 200 or 300 <= st < 400 or st in (502, 503, 504)):
        return "loading"
    if obs.url in ("", "about:blank") and not obs.labels and not obs.page_text:
        return "loading"
    return None
