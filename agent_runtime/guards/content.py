"""What typed text and queries may say: WebRider Appendix H, Table 44 (guard authority), Table 16.

Three checks on every free-text field an executable action carries (typed text, search and maps
queries, a maps location), in the action and in every fallback or recovery alike: text that
solves or routes around a CAPTCHA or login wall is rejected (automation stops at walls, it never
works around them); credentials, card-like numbers and personal data are sent only where the
contract allows them; undecodable text gets its own label. The rules match folded text
(agent_runtime/guards/textfold.py), so case, width, spacing, zero-width characters and
look-alike letters do not get past them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

from agent_runtime.guards.errors import Rejected
from agent_runtime.guards.parse import undecodable
from agent_runtime.guards.textfold import digits_of, fold
from contracts.guard_labels import RejectReason
from contracts.observation import ElementLabel
from contracts.secrets import SECRET_FIELD, is_secret_ref, luhn

# What routes around a wall, by family. Distinctive names are matched inside the squashed
# views (separators, spacing and case gone), so "2-Captcha", "ａｒｃｈｉｖｅ．ｐｈ" and
# "w a y b a c k" all hit; generic words and phrases are matched as words, so "budget around"
# does not read as "get around".
BYPASS_NAMES: dict[str, tuple[str, ...]] = {
    "captcha": (
        "captcha", "recaptcha", "hcaptcha", "funcaptcha", "arkoselabs", "imnotarobot",
        "iamnotarobot", "turnstilechallenge",
    ),
    "solver service": (
        "2captcha", "anticaptcha", "capsolver", "capmonster", "deathbycaptcha", "nocaptchaai",
        "captchaai", "azcaptcha", "bestcaptchasolver", "endcaptcha", "imagetyperz", "rucaptcha",
        "nopecha", "truecaptcha", "cheapcaptcha", "captchasolver", "solvecaptcha", "9kweu",
    ),
    "archive or cached copy": (
        "webcache", "googleusercontent", "cachedcopy", "cachedversion", "cachedpage",
        "archiveorg", "archivetoday", "archiveph", "archiveis", "archiveli", "archivevn",
        "archivemd", "archivefo", "wayback", "ghostarchive", "12ftio", "1ftio", "removepaywall",
        "bypasspaywall", "paywallbuster", "smryai", "outlinecom", "archivebuttons",
        "timetravelmementoweb", "cachedview",
    ),
    "account sharing": (
        "bugmenot", "sharedaccount", "accountsharing", "passwordsharing", "sharedlogin",
        "loginsharing", "freelogins", "sharedpasswords", "fakeaccount", "fakelogin",
        "fakeemail", "tempmail", "temporaryemail", "10minutemail", "guerrillamail",
        "mailinator", "throwawayemail", "burneremail",
    ),
}  # fmt: skip
_BYPASS_WORDS = re.compile(
    r"\b(?:bypass\w*|circumvent\w*|get(?:ting)? around|work ?around|unblock\w*|proxy|proxies"
    r"|vpn|paywall|login wall|sign-?in wall|solve (?:the |this )?(?:challenge|puzzle)"
    r"|without (?:an? )?(?:account|log(?:ging)? ?in|sign(?:ing)? ?(?:in|up)|registering)"
    r"|12ft|cache:|site:archive)"
)
_NAMES = tuple((name, family) for family, names in BYPASS_NAMES.items() for name in names)
_CARD = re.compile(r"(?<!\d)(?:\d[\s./-]?){12,18}\d(?!\d)")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
_PHONE = re.compile(r"(?<!\d)\+?\d[\d\s().-]{8,}\d(?!\d)")
_CRED_FIELD = re.compile(r"user ?name|log ?in|sign ?in|one-time|\botp\b|2fa|verification code")
_PAY_FIELD = re.compile(r"card|cvv|cvc|expir|iban|account number|routing|sort code")
_PERSONAL_FIELD = re.compile(
    r"e-?mail|phone|mobile|full name|date of birth|birthday|address|zip|postcode|\bssn\b"
    r"|social security|passport"
)


def card_like(text: str) -> bool:
    """A Luhn-valid run of 13-19 digits, grouped by any spaces, dots, slashes or dashes."""
    t = unicodedata.normalize("NFKC", text)
    return any(luhn(digits_of(m.group(0))) for m in _CARD.finditer(t))


def bypass_match(text: str) -> str | None:
    """What in `text` names a way around an access wall (after folding), or None."""
    f = fold(text)
    for view in (f.squashed, f.leet):
        for name, family in _NAMES:
            if name in view:
                return f"{family} {name!r}"
    for view in (f.plain, f.joined, f.glued):
        m = _BYPASS_WORDS.search(view)
        if m is not None:
            return repr(m.group(0))
    return None


def check_text(text: str, field: str) -> None:
    """Reject undecodable text and text that works around an access wall."""
    bad = undecodable(text)
    if bad is not None:
        raise Rejected(RejectReason.UNDECODABLE_TEXT, f"{field} holds a {bad}")
    hit = bypass_match(text)
    if hit is not None:
        raise Rejected(
            RejectReason.ACCESS_CIRCUMVENTION,
            f"{field} names {hit}: it would solve or route around an access wall",
        )


def sensitive_kind(text: str, el: ElementLabel | None) -> str | None:
    """'credentials', 'payment' or 'personal' when sending `text` (into `el`, or as a query
    when `el` is None) discloses that."""
    label = fold(f"{el.text} {el.input_type or ''}").plain if el is not None else ""
    if is_secret_ref(text) or (
        el is not None
        and (el.input_type == "password" or SECRET_FIELD.search(label) or _CRED_FIELD.search(label))
    ):
        return "credentials"
    if card_like(text) or (el is not None and _PAY_FIELD.search(label)):
        return "payment"
    plain = fold(text).plain
    if (
        _EMAIL.search(plain)
        or _PHONE.search(plain)
        or (el is not None and _PERSONAL_FIELD.search(label))
    ):
        return "personal"
    return None


def check_sensitive(text: str, el: ElementLabel | None, allow: Collection[str] | None) -> None:
    if allow is None:  # no policy given (page-instructed tasks such as MiniWoB's)
        return
    kind = sensitive_kind(text, el)
    if kind is not None and kind not in allow:
        where = "typing" if el is not None else "sending in a query"
        raise Rejected(
            RejectReason.SENSITIVE_INPUT, f"{where} {kind} data is not allowed by the contract"
        )
