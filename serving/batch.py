"""Concurrent batch of chat calls for the offline eval (WebRider Appendix E, Tables 34-36).

A thread pool is enough: each call blocks on HTTP, and vLLM batches concurrent requests on its
side (continuous batching), so N in flight gives the server something to batch. Results come back
in input order; one failed example is recorded, not fatal to the whole run.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from pydantic import BaseModel, ConfigDict
from tqdm import tqdm

from serving.protocol import ChatBackend, ChatResult, Message


class BatchItem(BaseModel):
    """One example's outcome: a result, or the error that replaced it."""

    model_config = ConfigDict(extra="forbid")
    index: int
    result: ChatResult | None = None
    error: str | None = None


def chat_many(
    backend: ChatBackend,
    conversations: Sequence[list[Message]],
    json_schema: dict[str, Any] | Sequence[dict[str, Any] | None] | None = None,
    concurrency: int = 8,
    temperature: float = 0.0,
    max_tokens: int = 256,
    progress: bool = True,
    desc: str = "chat",
) -> list[BatchItem]:
    """Run ``backend.chat`` over every conversation with ``concurrency`` calls in flight.

    ``json_schema`` is one schema for every call, or one per conversation (a grounded
    schema differs per step)."""
    items: list[BatchItem | None] = [None] * len(conversations)
    if json_schema is None or isinstance(json_schema, dict):
        schemas: Sequence[dict[str, Any] | None] = [json_schema] * len(conversations)
    else:
        schemas = json_schema
        if len(schemas) != len(conversations):
            raise ValueError(f"{len(schemas)} schemas for {len(conversations)} conversations")

    def one(i: int) -> BatchItem:
        try:
            res = backend.chat(
                conversations[i],
                json_schema=schemas[i],
                temperature=temperature,
                max_tokens=max_tokens,
            )
            return BatchItem(index=i, result=res)
        except Exception as err:  # one bad example must not sink the eval
            return BatchItem(index=i, error=f"{type(err).__name__}: {err}")

    with (
        ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool,
        tqdm(total=len(conversations), desc=desc, disable=not progress) as bar,
    ):
        futures = [pool.submit(one, i) for i in range(len(conversations))]
        for fut in as_completed(futures):
            item = fut.result()
            items[item.index] = item
            bar.update(1)
    return [it for it in items if it is not None]
