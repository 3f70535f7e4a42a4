"""One in-process generation as a stream of text deltas, for a streamed and a whole answer alike.

`model.generate` runs in a worker thread; after every step a stopping criterion hands the new
ids to the detokenizer, queues the delta, and ends generation on a stop string or when the
reader went away (a closed stream). Iterating yields the deltas; afterwards `text`,
`finish_reason`, `stop_reason` and the token counts describe the answer.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from serving.detokenize import IncrementalText

_END = object()


class Generation:
    """Started at construction; iterate it once for the deltas (or call `result`)."""

    def __init__(
        self,
        run: Callable[[Any], Any],
        detok: IncrementalText,
        prompt_tokens: int,
        prompt_len: int,
    ) -> None:
        self.detok = detok
        self.prompt_tokens = prompt_tokens
        self._prompt_len = prompt_len
        self._queue: queue.Queue[Any] = queue.Queue()
        self._cancelled = threading.Event()
        self._thread = threading.Thread(target=self._work, args=(run,), daemon=True)
        self._thread.start()

    # -- the worker side ---------------------------------------------------------------------
    def __call__(self, input_ids, scores=None, **_: Any):
        """transformers StoppingCriteria: read this step's token, say whether to stop."""
        import torch

        new = input_ids[0, self._prompt_len + len(self.detok.ids) :].tolist()
        piece = self.detok.add(new)
        if piece:
            self._queue.put(piece)
        stop = self.detok.done or self._cancelled.is_set()
        return torch.full((input_ids.shape[0],), stop, dtype=torch.bool)

    def _work(self, run: Callable[[Any], Any]) -> None:
        try:
            run(self)
            piece = self.detok.finish("abort" if self._cancelled.is_set() else "length")
            if piece:
                self._queue.put(piece)
        except BaseException as err:  # handed to the reader, who raises it in its own thread
            self._queue.put(err)
        self._queue.put(_END)

    # -- the reader side ---------------------------------------------------------------------
    def __iter__(self) -> Iterator[str]:
        try:
            while (item := self._queue.get()) is not _END:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            self.close()

    def close(self) -> None:
        """Stop generating (the reader is gone); the worker ends after its current step."""
        self._cancelled.set()

    def result(self) -> str:
        """Wait for the whole answer."""
        return "".join(self)

    @property
    def text(self) -> str:
        return self.detok.emitted

    @property
    def finish_reason(self) -> str:
        return self.detok.finish_reason or "length"

    @property
    def stop_reason(self) -> str | None:
        return self.detok.stop_reason

    @property
    def completion_tokens(self) -> int:
        return len(self.detok.ids)
