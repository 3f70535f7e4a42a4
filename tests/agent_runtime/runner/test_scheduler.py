"""Scheduling: shards are disjoint and complete, the site queue never runs a site twice at once."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_runtime.runner.scheduler import SiteQueue, in_shard, parse_shard, seeded_order


@given(
    st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=40, unique=True),
    st.integers(1, 6),
)
def test_shards_partition_the_contracts(keys, n):
    owners = [[i for i in range(n) if in_shard(k, (i, n))] for k in keys]
    assert all(len(o) == 1 for o in owners)


def test_parse_shard_errors():
    assert parse_shard("2/4") == (2, 4)
    for bad in ("4/4", "x", "1/0", "-1/2"):
        with pytest.raises(ValueError):
            parse_shard(bad)


def test_seeded_order_is_reproducible():
    items = list(range(50))
    assert seeded_order(items, 7) == seeded_order(items, 7)
    assert seeded_order(items, 7) != seeded_order(items, 8)


def test_site_queue_never_runs_one_site_twice():
    items = [(site, i) for site in "abc" for i in range(6)]
    q: SiteQueue[tuple[str, int]] = SiteQueue(items, lambda x: x[0])
    active: dict[str, int] = {}
    peak: dict[str, int] = {}
    lock = threading.Lock()
    done: list[tuple[str, int]] = []

    def worker() -> None:
        while (item := q.take()) is not None:
            with lock:
                active[item[0]] = active.get(item[0], 0) + 1
                peak[item[0]] = max(peak.get(item[0], 0), active[item[0]])
            time.sleep(0.002)
            with lock:
                active[item[0]] -= 1
                done.append(item)
            q.done(item)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(done) == sorted(items)
    assert max(peak.values()) == 1
