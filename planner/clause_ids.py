"""Course identifiers literally in a span: KnowPlan, "Deterministic-first parsing" (the enum).

The clause model may name a course only from an enum "built from tokens literally present in the
span". Catalog prose prints one course many ways, so each literal token is read into the
catalog's canonical form and keeps the offsets it was read from (its evidence):

- ``MATH 220``, ``CH/BI 125``: already canonical;
- ``BIO126``, ``CHEM125``: a missing space;
- ``Math 244``, ``psych 230``: a subject code in another case;
- ``Psychology 125``, ``Computer Science 121``: a department name, when the catalog's
  name-to-code table is given (`subjects`); without it a single capitalised word stands as the code;
- ``MATH 244 or 252``: a bare number joined to a course by "or", "and", "," or "/" carries that
  course's subject (never across a hyphen: "110-121" is a range, not two courses).

Nothing else becomes an identifier: a number after an ordinary word ("the 270 level", "swim 300
yards") is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

# A word (or two codes joined by "/") directly before a 2-4 digit number with an optional letter.
_TOKEN = re.compile(
    r"(?<![A-Za-z0-9])(?<![A-Za-z]/)(?P<code>[A-Za-z]{2,12}(?:/[A-Za-z]{2,5})?)(?P<sp> ?)"
    r"(?P<num>\d{2,4})(?P<suf>[A-Z]?)(?![0-9A-Za-z]|-\d)"
    # "CSCI 251counts": an upper-case code whose number is glued to the next word.
    r"|(?<![A-Za-z0-9])(?<![A-Za-z]/)(?P<code2>[A-Z]{2,5}(?:/[A-Z]{2,5})?) ?"
    r"(?P<num2>\d{3})(?P<suf2>[A-Z]?)(?=[a-z]{2,})"
)
_BARE = re.compile(r"\d{3}[A-Z]?(?![0-9A-Za-z-])")
# What may stand between a course and a bare number that carries its subject.
_JOIN = re.compile(r"^(?:\s*(?:,|;|/|\bor\b|\band\b|\band/or\b|\beither\b)\s*)+$", re.I)
# Short words that precede numbers in prose and are never subject codes.
_STOP_TEXT = (
    "a an the at of or and to in on by for than over under above below least most with from into "
    "level levels fall spring summer winter interim room swim page class only all any each every "
    "one two three four five six ten units unit hours hour score grade total about after per max "
    "min age year years day days noon oct nov dec jan feb mar apr jun jul aug sep sept number "
    "numbered numbers course courses lengths yards section term semester semesters ap sat act "
    "toefl ielts gpa credit credits are is be was were"
)
_STOP = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True)
class Identifier:
    """A canonical course id and the span offsets of the token it was read from."""

    id: str
    start: int
    end: int


def _subject(code: str, subjects: Mapping[str, str] | None, words_before: str) -> tuple[str, int]:
    """(canonical subject, extra characters consumed to the left) or ("", 0) when not a code."""
    if code.isupper():
        return (code, 0) if len(code) <= 6 or "/" in code else ("", 0)
    if "/" in code:
        return "", 0
    if subjects:
        # The longest department name that ends at this token ("Political Science 220").
        words = words_before.split(" ") if words_before else []
        for k in range(min(3, len(words)), 0, -1):
            head = words[len(words) - k :]
            name = " ".join([*head, code]).lower()
            if name in subjects and all(w[:1].isupper() for w in head):
                return subjects[name].upper(), len(" ".join(head)) + 1
        if code.lower() in subjects:
            return subjects[code.lower()].upper(), 0
    if code.lower() in _STOP:
        return "", 0
    if code[0].isupper() or len(code) <= 5:
        return code.upper(), 0  # "Psych 230", "EnvSt 137", "Chinese 302", "math 244"
    return "", 0


def find_identifiers(span: str, subjects: Mapping[str, str] | None = None) -> list[Identifier]:
    """Every course token in `span`, read to its canonical id, in order."""
    subjects = {k.lower(): v for k, v in subjects.items()} if subjects else None
    out: list[Identifier] = []
    for m in _TOKEN.finditer(span):
        code = m.group("code") or m.group("code2")
        num = m.group("num") or m.group("num2")
        suf = m.group("suf") if m.group("code") else m.group("suf2")
        if m.group("code") and len(num) != 3 and not (m.group("sp") and code.isupper()):
            continue  # "Level 2", "class of 2016": only a spaced upper-case code takes 2-4 digits
        subj, left = _subject(code, subjects, span[max(0, m.start() - 40) : m.start()].rstrip())
        if not subj:
            continue
        out.append(Identifier(f"{subj} {num}{suf}", m.start() - left, m.end()))
    # Bare numbers after a course carry its subject.
    carried: list[Identifier] = []
    taken = [(i.start, i.end) for i in out]
    for m in _BARE.finditer(span):
        if any(a <= m.start() < b for a, b in taken):
            continue
        prev = [i for i in out + carried if i.end <= m.start()]
        if not prev:
            continue
        last = max(prev, key=lambda i: i.end)
        if _JOIN.match(span[last.end : m.start()]) and span[last.end : m.start()].strip():
            subj = last.id.rsplit(" ", 1)[0]
            carried.append(Identifier(f"{subj} {m.group(0)}", m.start(), m.end()))
    return sorted(out + carried, key=lambda i: i.start)


def identifier_enum(span: str, subjects: Mapping[str, str] | None = None) -> list[str]:
    """Canonical course ids literally present in `span`, in order of first appearance."""
    return list(dict.fromkeys(i.id for i in find_identifiers(span, subjects)))


def canonical_text(span: str, subjects: Mapping[str, str] | None = None) -> str:
    """`span` with each course token written canonically (carried numbers stay bare) and a space
    restored after a number glued to the next word ("231or" -> "231 or"): what the grammar reads."""
    out, pos = [], 0
    for i in find_identifiers(span, subjects):
        if i.id.rsplit(" ", 1)[1] == span[i.start : i.end]:
            continue  # a carried bare number: the grammar carries it itself
        out += [span[pos : i.start], i.id]
        pos = i.end
    out.append(span[pos:])
    return re.sub(r"(\d{3}[A-Z]?)(?=[a-z]{2,})", r"\1 ", "".join(out))


def locate_text(text: str, span: str) -> int:
    """Offset of `text` in `span` ignoring case and runs of whitespace, or -1: how a text field's
    evidence is re-located before the clause is accepted."""
    norm = " ".join(text.split()).lower()
    if not norm:
        return -1
    squeezed, index = [], []
    prev_space = False
    for k, ch in enumerate(span):
        if ch.isspace():
            if prev_space:
                continue
            squeezed.append(" ")
            prev_space = True
        else:
            squeezed.append(ch.lower())
            prev_space = False
        index.append(k)
    at = "".join(squeezed).find(norm)
    return index[at] if at >= 0 else -1
