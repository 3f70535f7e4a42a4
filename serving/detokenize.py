"""Token ids in, text deltas out, as vLLM's incremental detokenizer gives them.

A streamed answer and the same answer in one piece must be the same text, so both are made here:
the whole answer is the join of the deltas. Stop strings end the answer and are not part of it;
a delta never carries a piece of text that could still turn out to begin a stop string, nor a
character whose bytes have not all arrived yet (a lone U+FFFD at the end of the decoded text).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

_PENDING = "\ufffd"  # what a byte-level decoder shows for a character cut between tokens


class IncrementalText:
    """The answer so far, from the ids generated so far; `add` returns the next delta."""

    def __init__(
        self, decode: Callable[[list[int]], str], stop: Sequence[str] = (), eos_ids=()
    ) -> None:
        self._decode = decode
        self._stop = [s for s in stop if s]
        self._hold = max((len(s) for s in self._stop), default=1) - 1
        self._eos = set(eos_ids)
        self.ids: list[int] = []
        self.emitted = ""
        self.finish_reason: str | None = None
        self.stop_reason: str | None = None
        self._text = ""

    @property
    def done(self) -> bool:
        return self.finish_reason is not None

    def add(self, new_ids: Sequence[int]) -> str:
        """Take newly generated ids; return what may be shown now ("" if nothing yet)."""
        if self.done:
            return ""
        self.ids.extend(int(i) for i in new_ids)
        self._text = self._decode(self.ids)
        hit = self._first_stop(self._text)
        if hit is not None:
            at, stop = hit
            self._text = self._text[:at]
            self.finish_reason, self.stop_reason = "stop", stop
            return self._delta(self._text)
        if self.ids and self.ids[-1] in self._eos:
            self.finish_reason = "stop"
            return self._delta(self._text)
        safe = self._text[: max(len(self.emitted), len(self._text) - self._hold)]
        return self._delta(safe.rstrip(_PENDING) if safe.endswith(_PENDING) else safe)

    def finish(self, reason: str = "length") -> str:
        """Generation ended (token budget, or cancelled): the rest of the text as the last delta."""
        if not self.done:
            self.finish_reason = reason
        return self._delta(self._text)

    def _first_stop(self, text: str) -> tuple[int, str] | None:
        # Only the tail can hold a new match: earlier text was searched at an earlier step.
        start = max(0, len(self.emitted) - self._hold)
        hits = [(i, s) for s in self._stop if (i := text.find(s, start)) >= 0]
        return min(hits) if hits else None

    def _delta(self, upto: str) -> str:
        if not upto.startswith(self.emitted) or len(upto) <= len(self.emitted):
            return ""  # the decoder revised earlier text; keep what was shown, add nothing yet
        piece = upto[len(self.emitted) :]
        self.emitted = upto
        return piece
