"""Text folding before the guards' text rules: WebRider Appendix H, Table 44 (guard authority).

A rule that matches "captcha" must also match "ＣＡＰＴＣＨＡ", "cap\u200btcha", "c a p t c h a"
and "сaptcha" with a Cyrillic "с": every check runs on the folded forms of a text, never on the
text as written. Folding is Unicode NFKC (full-width and mathematical letters), case folding,
removal of format characters (zero-width joiners, soft hyphens, bidi marks), a confusables map
to Latin, and two spacing views: letters spelled out one by one joined up, and every separator
dropped.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

# Letters of other scripts drawn like Latin ones (Unicode's confusables.txt, the Latin targets of
# Cyrillic, Greek, Armenian and Cherokee letters that NFKC leaves alone), and the digit and
# symbol spellings people use for letters.
_CONFUSABLES = {
    # Cyrillic
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i",
    "ј": "j", "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "г": "r",
    "ѕ": "s", "т": "t", "ц": "u", "ѵ": "v", "ԝ": "w", "х": "x", "у": "y", "з": "3", "ь": "b",
    "п": "n", "л": "n", "ꙇ": "i",
    # Greek
    "α": "a", "β": "b", "ϲ": "c", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "μ": "u", "ϳ": "j", "ς": "c",
    # Armenian, Cherokee, Latin extensions
    "օ": "o", "ս": "u", "հ": "h", "ո": "n", "ց": "g", "ք": "q", "ᴄ": "c", "ᴏ": "o", "ᴠ": "v",
    "ᴡ": "w", "ᴢ": "z", "ı": "i", "ȷ": "j", "ɑ": "a", "ɡ": "g", "ꮯ": "c", "ꭺ": "a",
}  # fmt: skip
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a",
                       "$": "s", "|": "l", "!": "i"})  # fmt: skip
_CONFUSE = str.maketrans(_CONFUSABLES)
_SEP = r"[\s._\-·•*/\\+~|,;:'\"`^=]"
# Single characters separated by one separator each: "c a p t c h a", "v.p.n".
_SPELLED = re.compile(rf"(?<![^\W_])(?:[^\W_]{_SEP}+){{2,}}[^\W_](?![^\W_])")
_NON_ALNUM = re.compile(r"[\W_]+")
_INNER_SEP = re.compile(r"(?<=[^\W_])[._\-·•*/\\+~|]+(?=[^\W_])")


def _drop_format(text: str) -> str:
    # Cf: zero-width space/joiners, soft hyphen, bidi controls, word joiner, BOM; variation
    # selectors (Mn, but never meaningful in a query) go too.
    return "".join(
        c for c in text if unicodedata.category(c) != "Cf" and not 0xFE00 <= ord(c) <= 0xFE0F
    )


def _strip_marks(text: str) -> str:
    """Letters without combining accents ("càptchа" -> "captcha")."""
    return "".join(
        c for c in unicodedata.normalize("NFKD", text) if unicodedata.category(c) != "Mn"
    )


@dataclass(frozen=True)
class Folded:
    """The views of one text the rules match on."""

    plain: str  # NFKC, case-folded, format characters gone, confusables mapped
    joined: str  # plain, with spelled-out letters joined ("c a p" -> "cap")
    glued: str  # plain, with separators inside words gone ("by-pass" -> "bypass")
    squashed: str  # plain, letters and digits only
    leet: str  # squashed, with digits and symbols read as letters

    def views(self) -> tuple[str, ...]:
        return (self.plain, self.joined, self.glued, self.squashed, self.leet)


@lru_cache(maxsize=4096)
def fold(text: str) -> Folded:
    t = unicodedata.normalize("NFKC", _drop_format(text))
    # Before and after case folding: folding turns some look-alikes (lunate sigma) into others.
    t = _strip_marks(t).translate(_CONFUSE).casefold().translate(_CONFUSE)
    t = unicodedata.normalize("NFKC", t)
    joined = _SPELLED.sub(lambda m: _NON_ALNUM.sub("", m.group(0)), t)
    glued = _INNER_SEP.sub("", joined)
    squashed = _NON_ALNUM.sub("", t)
    leet = _NON_ALNUM.sub("", t.translate(_LEET))
    return Folded(t, joined, glued, squashed, leet)


def digits_of(text: str) -> str:
    """Every decimal digit of `text` in ASCII (full-width and other scripts' digits too)."""
    return "".join(
        str(unicodedata.digit(c)) for c in text if unicodedata.digit(c, None) is not None
    )
