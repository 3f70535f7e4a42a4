"""What typed text and queries may say: WebRider Appendix H, Table 44 (guard authority), Table 16.

Three checks on the text an action carries, action and fallback alike: text that solves or
routes around a CAPTCHA or login wall is rejected (automation stops at walls, it never works
around them); credentials, card-like numbers and personal data are typed only where the
contract allows them; undecodable text gets its own label.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from agent_runtime.guards.errors import Rejected
from agent_runtime.guards.parse import undecodable
from contracts.guard_labels import RejectReason
from contracts.observation import ElementLabel

_CIRCUMVENT = re.compile(
    r"captcha|recaptcha|hcaptcha|i'?m not a robot|bypass|circumvent|get around|work ?around"
    r"|cached (?:copy|version|page)|webcache|archive\.(?:org|today|ph)|wayback|12ft\.io"
    r"|without (?:an? )?(?:account|log(?:ging)? ?in|sign(?:ing)? ?in)|login wall|paywall"
    r"|unblock|proxy|vpn|solve (?:the )?(?:challenge|puzzle)|fake (?:account|login|email)",
    re.I,
)
_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){13,19}(?!\d)")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
_PHONE = re.compile(r"(?<!\d)\+?\d[\d ()-]{8,}\d(?!\d)")
_CRED_FIELD = re.compile(
    r"password|passcode|passwort|user ?name|log ?in|sign ?in|one-time code", re.I
)
_PAY_FIELD = re.compile(r"card|cvv|cvc|expir|iban|account number", re.I)
_PERSONAL_FIELD = re.compile(
    r"e-?mail|phone|mobile|full name|date of birth|address|zip|postcode", re.I
)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def card_like(text: str) -> bool:
    return any(_luhn(re.sub(r"\D", "", m.group(0))) for m in _CARD.finditer(text))


def check_text(text: str, field: str) -> None:
    """Reject undecodable text and text that works around an access wall."""
    bad = undecodable(text)
    if bad is not None:
        raise Rejected(RejectReason.UNDECODABLE_TEXT, f"{field} holds a {bad}")
    m = _CIRCUMVENT.search(text)
    if m is not None:
        raise Rejected(
            RejectReason.ACCESS_CIRCUMVENTION,
            f"{field} {m.group(0)!r} would solve or route around an access wall",
        )


def sensitive_kind(text: str, el: ElementLabel | None) -> str | None:
    """'credentials', 'payment' or 'personal' when typing `text` into `el` discloses that."""
    label = f"{el.text} {el.input_type or ''}" if el is not None else ""
    if el is not None and (el.input_type == "password" or _CRED_FIELD.search(label)):
        return "credentials"
    if card_like(text) or (el is not None and _PAY_FIELD.search(label)):
        return "payment"
    if (
        _EMAIL.search(text)
        or _PHONE.search(text)
        or (el is not None and _PERSONAL_FIELD.search(label))
    ):
        return "personal"
    return None


def check_sensitive(text: str, el: ElementLabel | None, allow: Collection[str] | None) -> None:
    if allow is None:  # no policy given (page-instructed tasks such as MiniWoB's)
        return
    kind = sensitive_kind(text, el)
    if kind is not None and kind not in allow:
        raise Rejected(
            RejectReason.SENSITIVE_INPUT, f"typing {kind} data is not allowed by the contract"
        )
