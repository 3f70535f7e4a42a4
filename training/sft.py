"""Middle-layer and clause-to-AST LoRA SFT runner: WebRider Appendix E, Tables 37-39.

One entry point for every recipe, on one CPU or many GPUs:

    accelerate launch --config_file training/accelerate/zero2-4gpu.yaml training/sft.py \\
        --recipe training/recipes/middle-qwen3vl-8b.yaml --dataset data/sft/middle
    python -m training.sft --recipe training/recipes/tiny-middle-vl.yaml --dataset DIR

TRL's SFTTrainer with a PEFT LoRA adapter, loss on assistant tokens only (the LM head projects
only those, on a CPU too: training/cpu_lm_head.py), overlength examples deleted and counted. The
batch arithmetic is checked against the launch before any model loads.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file by `accelerate launch training/sft.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from training.checkpoints import ResumePlan, finished_state, plan_resume
from training.sft_config import (
    Recipe,
    RecipeError,
    build_sft_config,
    check_world_batch,
    load_recipe,
    resolve_path,
    with_resolved_precision,
    world_size_from_env,
)
from training.sft_trainer import build_trainer

log = logging.getLogger("training.sft")

SUMMARY_FILE = "run_summary.json"
OVERLENGTH_FILE = "overlength.json"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="training/sft.py",
        description=(
            "LoRA SFT of a recipe (training/recipes/*.yaml) with TRL + PEFT. Launch it with "
            "`accelerate launch --config_file training/accelerate/<cfg>.yaml training/sft.py "
            "--recipe ...` on GPUs, or `python -m training.sft --recipe ...` for one process. "
            "Hyperparameters come from the recipe; the flags below only override paths, the "
            "length of the run and the batch split."
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--recipe", required=True, type=Path, help="recipe YAML")
    p.add_argument("--dataset", help="DatasetDict directory (save_to_disk); overrides data.dataset")
    p.add_argument("--output-dir", help="run directory; overrides output_dir")
    p.add_argument("--model", help="model directory or hub id; overrides model.name_or_path")
    p.add_argument("--max-steps", type=int, help="stop after N optimizer steps (smoke runs)")
    p.add_argument("--max-length", type=int, help="token limit; longer examples are deleted")
    p.add_argument(
        "--micro-batch",
        type=int,
        help="per-process micro batch; must keep processes x micro x accum = global batch",
    )
    p.add_argument("--grad-accum", type=int, help="gradient accumulation steps (same rule)")
    p.add_argument(
        "--precision",
        choices=["bf16", "fp32", "auto"],
        help="override precision (and the model dtype with it), e.g. bf16 for a GPU smoke run; "
        "auto = bf16 where the GPU or CPU runs it natively, else fp32",
    )
    p.add_argument(
        "--resume",
        default="auto",
        help="'auto': continue from the last checkpoint-N in the output dir (model-only if the "
        "world size changed); 'never': start fresh; or a checkpoint directory",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="validate the recipe, batch arithmetic and SFTConfig, then exit (no model load)",
    )
    return p


def apply_overrides(recipe: Recipe, args: argparse.Namespace) -> Recipe:
    """Command-line overrides, re-validated through the recipe model."""
    data = recipe.model_dump()
    if args.dataset:
        data["data"]["dataset"] = args.dataset
    if args.output_dir:
        data["output_dir"] = args.output_dir
    if args.model:
        data["model"]["name_or_path"] = args.model
    if args.max_steps is not None:
        data["trainer"]["max_steps"] = args.max_steps
    if args.max_length is not None:
        data["data"]["max_length"] = args.max_length
    if args.precision:
        data["precision"] = args.precision
        data["model"]["dtype"] = {"bf16": "bfloat16", "fp32": "float32", "auto": "auto"}[
            args.precision
        ]
    b = data["batch"]
    if args.micro_batch is not None or args.grad_accum is not None:
        b["micro_batch"] = args.micro_batch or b["micro_batch"]
        b["grad_accum"] = args.grad_accum or b["grad_accum"]
        # The global batch is the invariant; the process count follows from it.
        per_proc = b["micro_batch"] * b["grad_accum"]
        b["gpus"] = b["global_batch"] // per_proc if b["global_batch"] % per_proc == 0 else 0
        if b["gpus"] == 0:
            raise RecipeError(
                f"{args.recipe}: --micro-batch {b['micro_batch']} x --grad-accum {b['grad_accum']} "
                f"does not divide the global batch {b['global_batch']}"
            )
    try:
        updated = Recipe.model_validate(data)
    except Exception as e:
        raise RecipeError(f"{args.recipe} (after command-line overrides): {e}") from None
    updated._source = recipe._source
    return updated


def run(
    recipe: Recipe, world_size: int, resume: str = "auto", precision_reason: str = ""
) -> dict[str, Any]:
    """Train the recipe's adapter; return (and write) the run summary."""
    from training.checkpoints import load_adapter_weights

    out = resolve_path(recipe.output_dir)
    trainer, counts = build_trainer(recipe, world_size)
    config = trainer.args
    if trainer.is_world_process_zero():
        # Written before training so the deletion counts survive a crashed or interrupted run.
        out.mkdir(parents=True, exist_ok=True)
        (out / OVERLENGTH_FILE).write_text(
            json.dumps({"max_length": recipe.data.max_length, **counts}, indent=2) + "\n"
        )
    model_only = (
        resolve_path(recipe.resume.model_only_from) if recipe.resume.model_only_from else None
    )
    plan: ResumePlan = plan_resume(out, world_size, resume, model_only)
    log.warning("resume plan: %s (%s) %s", plan.mode, plan.reason, plan.checkpoint or "")
    if plan.mode == "model_only":
        load_adapter_weights(trainer.model, plan.checkpoint)
    done = finished_state(plan, config.max_steps)
    if done is not None:
        # Transformers' loop would still take one step past max_steps from a final checkpoint.
        log.warning(
            "resume plan: %s already reached step %d; nothing to train",
            plan.checkpoint,
            done.global_step,
        )
        load_adapter_weights(trainer.model, plan.checkpoint)
        trainer.state = done
        metrics: dict[str, Any] = {}
        if not (out / "adapter_model.safetensors").is_file():  # stopped before its final save
            trainer.save_model(str(out))
    else:
        result = trainer.train(
            resume_from_checkpoint=str(plan.checkpoint) if plan.mode == "full" else None
        )
        metrics = result.metrics
        trainer.save_model(str(out))
        trainer.save_state()
    eval_metrics = trainer.evaluate() if trainer.eval_dataset is not None else {}
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    acc = trainer.accelerator
    plugin = acc.state.deepspeed_plugin
    summary = {
        "recipe": recipe.name,
        "world_size": world_size,
        "num_processes": acc.num_processes,
        "distributed_type": str(acc.distributed_type).split(".")[-1],
        "zero_stage": plugin.zero_stage if plugin is not None else None,
        "precision": recipe.precision,
        "precision_reason": precision_reason,
        "device": str(acc.device),
        "global_batch": recipe.batch.global_batch,
        "micro_batch": recipe.batch.micro_batch,
        "grad_accum": recipe.batch.grad_accum,
        "global_step": trainer.state.global_step,
        "resume": {
            "mode": plan.mode,
            "checkpoint": str(plan.checkpoint or ""),
            "reason": plan.reason,
        },
        "overlength": counts,
        "train_losses": losses,
        "train_metrics": metrics,
        "eval_metrics": eval_metrics,
    }
    if trainer.is_world_process_zero():
        (out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n")
    # Tearing the process group down before exit: left to interpreter shutdown, a rank's
    # communication threads can abort (SIGABRT) after a run that finished.
    acc.wait_for_everyone()
    acc.end_training()
    return summary


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        recipe = apply_overrides(load_recipe(args.recipe), args)
        asked = recipe.precision
        recipe, why = with_resolved_precision(recipe)
        print(f"precision: {recipe.precision} (recipe says {asked}: {why})", file=sys.stderr)
        world_size = world_size_from_env()
        check_world_batch(recipe, world_size)  # before any model or dataset loads
        if args.check:
            build_sft_config(recipe, resolve_path(recipe.output_dir), validate_only=True)
            print(f"recipe {args.recipe} is valid for {world_size} process(es)")
            return 0
    except RecipeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        summary = run(recipe, world_size, args.resume, why)
    except RecipeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    losses = summary["train_losses"]
    if losses:
        print(f"done: {summary['global_step']} steps, loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    return 0


if __name__ == "__main__":
    code = main()
    if world_size_from_env() > 1:
        # Everything is saved and the process group is gone; a rank of a CPU run under ZeRO-2
        # has still been seen to abort in a native destructor at interpreter exit ("terminate
        # called without an active exception"), turning a finished run into a failed launch.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
