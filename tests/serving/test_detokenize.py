"""The incremental detokenizer: deltas that join to the answer, stop strings cut and never
streamed in part, characters whose bytes are split across tokens held back until whole."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from serving.detokenize import IncrementalText


def by_bytes(ids: list[int]) -> str:
    # Each id is one byte, as in a byte-level BPE: a character may span several ids.
    return bytes(ids).decode("utf-8", errors="replace")


def feed(ids: list[int], stop=(), eos=()) -> tuple[IncrementalText, list[str]]:
    detok = IncrementalText(by_bytes, stop, eos)
    deltas = []
    for i in ids:
        deltas.append(detok.add([i]))
        if detok.done:
            break
    deltas.append(detok.finish())
    return detok, deltas


def test_a_split_character_is_held_back_until_whole():
    ids = list("é!".encode())  # é is two bytes
    detok, deltas = feed(ids)
    assert deltas == ["", "é", "!", ""] and detok.emitted == "é!"
    assert detok.finish_reason == "length"


def test_a_stop_string_is_cut_and_never_streamed_in_part():
    detok, deltas = feed(list(b"abc<END>xyz"), stop=["<END>"])
    assert "".join(deltas) == "abc" and detok.finish_reason == "stop"
    assert detok.stop_reason == "<END>" and bytes(detok.ids) == b"abc<END>"
    assert all("<" not in d for d in deltas)


def test_eos_ends_the_answer_without_itself():
    # The real decoder skips special tokens; so does this one.
    detok = IncrementalText(lambda ids: by_bytes([i for i in ids if i]), (), eos_ids=[0])
    deltas = [detok.add([i]) for i in (104, 105, 0)]
    assert "".join(deltas) == "hi" and detok.done and detok.add([106]) == ""
    assert detok.finish_reason == "stop" and detok.stop_reason is None and len(detok.ids) == 3


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(st.characters(codec="utf-8", exclude_characters="\ufffd"), max_size=30),
    stops=st.lists(st.text("ab<>", min_size=1, max_size=3), max_size=3),
)
def test_the_deltas_join_to_the_text_before_the_first_stop(text, stops):
    ids = list(text.encode())
    detok, deltas = feed(ids, stop=stops)
    whole = by_bytes(detok.ids)
    hits = [whole.find(s) for s in stops if s in whole]
    expected = whole[: min(hits)] if hits else whole
    assert "".join(deltas) == detok.emitted == expected
    assert (detok.finish_reason == "stop") == bool(hits)
    if hits:  # generation stopped at the token that completed the first stop string
        assert not any(s in by_bytes(detok.ids[:-1]) for s in stops)
