"""`pathwise train`: one recipe, one dataset, under `accelerate launch` (training/launch.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from common.cli import fail


def train(
    recipe: Annotated[Path, typer.Option(help="Recipe YAML (training/recipes/*.yaml).")],
    dataset: Annotated[
        Path | None,
        typer.Option(help="SFT DatasetDict folder; default: the recipe's data.dataset."),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(help="Base model folder or hub id; default: the recipe's model.name_or_path."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Run folder (resumes from its last checkpoint); default: the recipe's."),
    ] = None,
    accelerate_config: Annotated[
        Path | None,
        typer.Option(help="accelerate YAML; default: the recipe's distributed.accelerate_config."),
    ] = None,
    num_processes: Annotated[
        int | None,
        typer.Option(
            min=1,
            envvar="PATHWISE_NUM_PROCESSES",
            help="Processes over ALL machines (accelerate's meaning); default: the config's.",
        ),
    ] = None,
    num_machines: Annotated[
        int | None,
        typer.Option(min=1, envvar=["PATHWISE_NUM_MACHINES", "SLURM_NNODES"], help="Machines."),
    ] = None,
    machine_rank: Annotated[
        int | None,
        typer.Option(
            min=0, envvar=["PATHWISE_MACHINE_RANK", "SLURM_NODEID"], help="This machine's rank."
        ),
    ] = None,
    main_process_ip: Annotated[
        str | None,
        typer.Option(envvar=["PATHWISE_MAIN_PROCESS_IP", "MASTER_ADDR"], help="Rank 0's address."),
    ] = None,
    main_process_port: Annotated[
        int | None,
        typer.Option(envvar=["PATHWISE_MAIN_PROCESS_PORT", "MASTER_PORT"], help="Rank 0's port."),
    ] = None,
    max_steps: Annotated[int | None, typer.Option(min=1, help="Stop after N steps.")] = None,
    precision: Annotated[
        str | None,
        typer.Option(help="bf16, fp32 or auto (bf16 where the GPU or CPU runs it natively)."),
    ] = None,
    micro_batch: Annotated[
        int | None, typer.Option(min=1, help="Per-process micro batch (keeps the global batch).")
    ] = None,
    grad_accum: Annotated[
        int | None, typer.Option(min=1, help="Gradient accumulation (keeps the global batch).")
    ] = None,
    resume: Annotated[
        str, typer.Option(help="auto (the last checkpoint in --out), never, or a checkpoint.")
    ] = "auto",
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Launch as for real, but every process only validates the recipe, its batch "
            "against the launch and TRL's config, then exits (no model, no data).",
        ),
    ] = False,
) -> None:
    """Train a recipe's LoRA adapter with TRL under `accelerate launch` (DeepSpeed where the
    config says so), on one CPU, a GPU node or several nodes; writes OUT/run_summary.json.

    The exact command is printed first. On N nodes run the same command on each, with
    --num-machines N, --machine-rank 0..N-1, --main-process-ip of rank 0 and --num-processes the
    total; under Slurm these come from SLURM_NNODES, SLURM_NODEID and MASTER_ADDR/MASTER_PORT.
    """
    from training.launch import TrainLaunch
    from training.launch import train as run_train
    from training.sft_config import RecipeError

    try:
        spec = TrainLaunch(
            recipe=recipe, dataset=dataset, model=model, out=out,
            accelerate_config=accelerate_config, num_processes=num_processes,
            num_machines=num_machines, machine_rank=machine_rank,
            main_process_ip=main_process_ip, main_process_port=main_process_port,
            max_steps=max_steps, precision=precision, micro_batch=micro_batch,
            grad_accum=grad_accum, resume=resume, check=check,
        )  # fmt: skip
        summary = run_train(spec, echo=lambda s: typer.echo(s, err=True))
    except (RecipeError, RuntimeError, ValueError, OSError) as e:
        fail(e)
    if check:
        typer.echo(f"check passed: {spec.recipe} under this launch")
        return
    losses = summary.get("train_losses") or []
    if losses:
        typer.echo(
            f"done: {summary['global_step']} steps, loss {losses[0]:.4f} -> {losses[-1]:.4f}"
        )


def register(app: typer.Typer) -> None:
    app.command("train")(train)
