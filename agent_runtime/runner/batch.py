"""Batch runner: resumable, sharded, N workers, one active rollout per site (WebRider App. D)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from tqdm import tqdm

from agent_runtime.runner.config import RunConfig
from agent_runtime.runner.factories import WorkerResources
from agent_runtime.runner.rollout import run_rollout, safe_name
from agent_runtime.runner.scheduler import SiteQueue, in_shard, parse_shard, seeded_order
from agent_runtime.runner.traces import TRACES_DIR, TraceWriter, iter_rows, trace_files
from contracts.intent import IntentContract
from contracts.step_row import RolloutOutcome, StepRow

MANIFEST = "run.json"


class RunDirError(RuntimeError):
    """The output folder belongs to a different run; refuse instead of mixing traces."""


def _attempts(run_dir: Path) -> tuple[dict[str, set[str]], dict[str, list[RolloutOutcome]]]:
    """Rollout ids seen per contract (complete or torn) and outcome rows per contract."""
    ids: dict[str, set[str]] = {}
    outcomes: dict[str, list[RolloutOutcome]] = {}
    for path in trace_files(run_dir):
        for _, row, _ in iter_rows(path):
            if isinstance(row, StepRow | RolloutOutcome):
                ids.setdefault(row.contract.contract_id, set()).add(row.rollout_id)
            if isinstance(row, RolloutOutcome):
                outcomes.setdefault(row.contract.contract_id, []).append(row)
    return ids, outcomes


def _is_finished(outs: list[RolloutOutcome], retries: int) -> bool:
    if not outs:
        return False
    failures = sum(o.terminal == "runtime_failure" for o in outs)
    return outs[-1].terminal != "runtime_failure" or failures > retries


def _check_manifest(run_dir: Path, cfg: RunConfig, contracts_sha: str) -> None:
    """Write OUT/run.json once, or check the one there: shards of one run started at the same
    moment (`--shard i/n` on a scheduler) race here, so the manifest is created atomically and
    exclusively (a hard link of a private temporary file) and a loser reads the winner's."""
    path = run_dir / MANIFEST
    want = {
        "policy": cfg.policy_name(),
        "contracts_sha256": contracts_sha,
        # Which shard a process runs is its own business, not the run's.
        "config": cfg.model_dump(mode="json", exclude={"shard"}),
    }
    if not path.exists():
        run_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{MANIFEST}.", dir=run_dir)
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(json.dumps(want, indent=2))
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    have = json.loads(path.read_text())
    if have.get("policy") != want["policy"]:
        raise RunDirError(
            f"{run_dir} holds a run of policy {have.get('policy')!r}, not {want['policy']!r}; "
            "use another --out folder (existing traces are never overwritten)"
        )


def run_batch(
    contracts: list[IntentContract],
    run_dir: Path,
    cfg: RunConfig,
    *,
    resources: Callable[[], WorkerResources],
    progress: bool = True,
) -> list[RolloutOutcome]:
    """Run every contract of this shard that is not finished yet; return this call's outcomes."""
    shard = parse_shard(cfg.shard)
    sha = hashlib.sha256("\n".join(c.contract_id for c in contracts).encode()).hexdigest()
    _check_manifest(run_dir, cfg, sha)
    ids, outcomes = _attempts(run_dir)
    todo = [
        c
        for c in contracts
        if in_shard(c.contract_id, shard)
        and not _is_finished(outcomes.get(c.contract_id, []), cfg.retries)
    ]
    todo = seeded_order(todo, cfg.seed)
    trace_name = f"shard-{shard[0]}-of-{shard[1]}.jsonl"
    writer = TraceWriter(run_dir / TRACES_DIR / trace_name)
    queue: SiteQueue[IntentContract] = SiteQueue(todo, lambda c: c.env.site_key())
    results: list[RolloutOutcome] = []
    lock = threading.Lock()
    bar = tqdm(
        total=len(todo), desc=f"rollouts ({cfg.policy_name()})", disable=not progress, unit="ep"
    )
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            with resources() as res:
                while (contract := queue.take()) is not None:
                    try:
                        prior = outcomes.get(contract.contract_id, [])
                        seen = ids.get(contract.contract_id, set())
                        attempt = len(seen)
                        while True:
                            top, middle = res.layers(contract)
                            out = run_rollout(
                                contract,
                                res.make_episode,
                                top,
                                middle,
                                cfg,
                                writer,
                                run_dir,
                                attempt=attempt,
                            )
                            prior = [*prior, out]
                            attempt += 1
                            if _is_finished(prior, cfg.retries):
                                break
                            res.recover()  # a crashed browser is restarted before the retry
                        with lock:
                            results.append(out)
                            bar.update(1)
                    finally:
                        queue.done(contract)
        except BaseException as e:  # surfaced after join; other workers keep going
            errors.append(e)

    threads = [threading.Thread(target=worker, name=f"worker-{i}") for i in range(cfg.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bar.close()
    writer.close()
    if errors and not results:
        raise errors[0]
    return results


__all__ = ["RunDirError", "run_batch", "safe_name"]
