"""External-access detection (CAPTCHA, login wall, 401/403/429, anti-bot): WebRider Table 46.

Shared by the guard compiler, the executor and the runner. A detected signal stops
automation with an access-failure label; nothing here or downstream tries to bypass it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from contracts.guard_labels import AccessSignal
from contracts.observation import Observation

# Interstitials are short pages, and the excerpt is bounded anyway; scanning a prefix keeps
# detection O(1) per step instead of O(page length).
SCAN_CHARS = 4000

# Phrases, not single words: an article that merely mentions "captcha" is not a wall.
_TEXT_MARKERS: tuple[tuple[str, AccessSignal], ...] = (
    ("verify you are human", AccessSignal.CAPTCHA),
    ("verify that you are human", AccessSignal.CAPTCHA),
    ("i'm not a robot", AccessSignal.CAPTCHA),
    ("i am not a robot", AccessSignal.CAPTCHA),
    ("are you a robot", AccessSignal.CAPTCHA),
    ("complete the captcha", AccessSignal.CAPTCHA),
    ("solve the captcha", AccessSignal.CAPTCHA),
    ("confirm you are a human", AccessSignal.CAPTCHA),
    ("prove you're human", AccessSignal.CAPTCHA),
    ("unusual traffic", AccessSignal.ANTI_BOT),
    ("automated queries", AccessSignal.ANTI_BOT),
    ("checking your browser", AccessSignal.ANTI_BOT),
    ("checking if the site connection is secure", AccessSignal.ANTI_BOT),
    ("pardon our interruption", AccessSignal.ANTI_BOT),
    ("access denied", AccessSignal.ANTI_BOT),
    ("request blocked", AccessSignal.ANTI_BOT),
    ("ddos protection by", AccessSignal.ANTI_BOT),
    ("sign in to continue", AccessSignal.LOGIN_WALL),
    ("log in to continue", AccessSignal.LOGIN_WALL),
    ("login to continue", AccessSignal.LOGIN_WALL),
    ("sign in to view", AccessSignal.LOGIN_WALL),
    ("log in to view", AccessSignal.LOGIN_WALL),
    ("you must be logged in", AccessSignal.LOGIN_WALL),
    ("you must log in", AccessSignal.LOGIN_WALL),
    ("please log in to", AccessSignal.LOGIN_WALL),
    ("please sign in to", AccessSignal.LOGIN_WALL),
    ("login required", AccessSignal.LOGIN_WALL),
    ("sign in required", AccessSignal.LOGIN_WALL),
)
# Titles are short and specific, so single words are safe there.
_TITLE_MARKERS: tuple[tuple[str, AccessSignal], ...] = (
    ("captcha", AccessSignal.CAPTCHA),
    ("just a moment", AccessSignal.ANTI_BOT),
    ("attention required", AccessSignal.ANTI_BOT),
    ("access denied", AccessSignal.ANTI_BOT),
    ("robot check", AccessSignal.CAPTCHA),
    *_TEXT_MARKERS,
)
# Challenge widgets embedded as iframes show up among the labels.
_WIDGETS = ("recaptcha", "hcaptcha", "captcha", "turnstile", "challenges.cloudflare.com")
_URL_PATTERNS: tuple[tuple[re.Pattern[str], AccessSignal], ...] = (
    (re.compile(r"captcha|/sorry/index|cdn-cgi/challenge|__cf_chl", re.I), AccessSignal.CAPTCHA),
    # A login page reached by redirect, carrying where to return: the wall, not a login task.
    (
        re.compile(
            r"/(?:log-?in|sign-?in|sign_in|servicelogin)\b[^#]*[?&](?:next|return\w*|"
            r"redirect\w*|continue|ret|dest\w*|from)=",
            re.I,
        ),
        AccessSignal.LOGIN_WALL,
    ),
    (
        re.compile(r"^https?://accounts\.google\.[a-z.]+/(?:v3/)?signin", re.I),
        AccessSignal.LOGIN_WALL,
    ),
)
_STATUS = {401: AccessSignal.HTTP_401, 403: AccessSignal.HTTP_403, 429: AccessSignal.HTTP_429}


@lru_cache(maxsize=256)
def _text_signal(text: str) -> AccessSignal | None:
    # Cached on the text itself: the same page is often compiled against several raw
    # outputs (sampling, `pathwise guards check`), and the phrase scan dominates the cost.
    low = text[:SCAN_CHARS].lower()
    for marker, signal in _TEXT_MARKERS:
        if marker in low:
            return signal
    return None


@lru_cache(maxsize=256)
def _title_signal(title: str) -> AccessSignal | None:
    low = title.lower()
    for marker, signal in _TITLE_MARKERS:
        if marker in low:
            return signal
    return None


@lru_cache(maxsize=256)
def _url_signal(url: str) -> AccessSignal | None:
    for pattern, signal in _URL_PATTERNS:
        if pattern.search(url):
            return signal
    return None


def _widget_signal(observation: Observation) -> AccessSignal | None:
    for el in observation.labels:
        text = el.text
        # Case variants instead of lower(): this loop runs over every label on every step.
        if (
            el.tag == "iframe"
            or el.role == "iframe"
            or "aptcha" in text
            or "APTCHA" in text
            or "robot" in text
        ):
            probe = f"{text} {el.value or ''}".lower()
            if any(w in probe for w in _WIDGETS) or "not a robot" in probe:
                return AccessSignal.CAPTCHA
    return None


def detect_access_signal(observation: Observation) -> AccessSignal | None:
    """The external-access signal an observation shows, or None.

    Order: the executor's own signal, then specific evidence (URL, title, widgets, text),
    then the bare HTTP status, so a 403 Cloudflare challenge reads as anti-bot/CAPTCHA.
    """
    if observation.access_signal is not None:
        return observation.access_signal
    return (
        _url_signal(observation.url)
        or (_title_signal(observation.title) if observation.title else None)
        or _widget_signal(observation)
        or (_text_signal(observation.page_text) if observation.page_text else None)
        or _STATUS.get(observation.status)  # type: ignore[arg-type]
    )
