"""Secrets never leave the page: the secret store of an intent contract (WebRider Table 9).

A secret (a password, a card number, anything the contract marks secret) is named, never
written: commands, prompts, actions and step rows carry the reference `{{secret:NAME}}`, and
the executor alone puts the real value into the page, at execution time. Whatever comes back
from the page (its text, a field's value, a URL) is redacted before anything records it: a known
value becomes its reference, a password field's content the fixed `MASK`, and a number that
looks like a payment card `MASK` as well.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote, quote_plus

MASK = "••••••••"
SECRET_REF = re.compile(r"\{\{secret:(?P<name>[A-Za-z0-9_.-]{1,64})\}\}")
# A card number is 13-19 digits, run together or in groups of four (Amex: 4-6-5) split by one
# kind of space, dash, dot or slash; looser groupings would mask price lists and decimals.
_CARD = re.compile(
    r"(?<![\d.,])(?:\d{13,19}"
    r"|\d{4}(?P<s>[ ./-])\d{4}(?P=s)\d{4}(?P=s)\d{1,7}"
    r"|\d{4}(?P<a>[ ./-])\d{6}(?P=a)\d{5})(?![\d])"
)
# The page's names for fields whose content is a secret whatever it holds.
SECRET_FIELD = re.compile(
    r"password|passwort|mot de passe|contraseña|senha|parola|wachtwoord|пароль|密码|パスワード"
    r"|passcode|\bpin\b|one-time code|cvv|cvc|security code|card number",
    re.I,
)


def secret_ref(name: str) -> str:
    return "{{secret:" + name + "}}"


def luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def card_numbers(text: str) -> list[str]:
    """Substrings of `text` that are Luhn-valid card numbers (13-19 digits, any grouping)."""
    return [m.group(0) for m in _CARD.finditer(text) if luhn(re.sub(r"\D", "", m.group(0)))]


def _encodings(value: str) -> list[str]:
    """The forms a value takes in text a page or a writer produces (longest first)."""
    forms = {
        value,
        quote(value, safe=""),
        quote_plus(value, safe=""),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
    }
    return sorted((f for f in forms if f), key=len, reverse=True)


class SecretStore:
    """Named secret values; `redact` hides them in text, `resolve` fills references back in."""

    def __init__(self, values: Mapping[str, str] | None = None) -> None:
        self._values: dict[str, str] = {}
        for name, value in (values or {}).items():
            self.add(name, value)

    def add(self, name: str, value: str) -> str:
        """Register `value` under `name`; returns its reference."""
        if not SECRET_REF.fullmatch(secret_ref(name)):
            raise ValueError(f"secret name {name!r}: use letters, digits, '_', '.', '-'")
        if value:
            self._values[name] = value
        return secret_ref(name)

    def names(self) -> list[str]:
        return sorted(self._values)

    def values(self) -> Iterable[str]:
        return self._values.values()

    def __bool__(self) -> bool:
        return bool(self._values)

    def redact(self, text: str) -> str:
        """`text` with every known secret (in every encoding) replaced by its reference and
        every card-like number by `MASK`."""
        if not text:
            return text
        pairs = [(form, name) for name, v in self._values.items() for form in _encodings(v)]
        for form, name in sorted(pairs, key=lambda p: len(p[0]), reverse=True):
            if form in text:
                text = text.replace(form, secret_ref(name))
        for card in card_numbers(text):
            text = text.replace(card, MASK)
        return text

    def resolve(self, text: str) -> str:
        """The executor's view: references replaced by the real values (unknown ones stay)."""
        return SECRET_REF.sub(lambda m: self._values.get(m.group("name"), m.group(0)), text)

    def leaks(self, text: str) -> list[str]:
        """Names of the secrets `text` still holds in any encoding (for tests and audits)."""
        return [n for n, v in self._values.items() if any(f in text for f in _encodings(v))]


def is_secret_ref(text: str | None) -> bool:
    return bool(text) and SECRET_REF.search(text or "") is not None
