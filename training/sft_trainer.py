"""The recipe's TRL SFTTrainer: base model and processor, LoRA config, data with overlength
examples deleted, the checkpoint stamp, and the CPU LM head (WebRider Appendix E, Tables 37-39).

`training/sft.py` (the entry point) builds its trainer here and runs it; benchmarks build the
same trainer to time it.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from training.checkpoints import write_meta
from training.sft_config import Recipe, RecipeError, build_sft_config, resolve_path
from training.templates import check_training_template

log = logging.getLogger("training.sft")

LENGTHS_DIR = "token_lengths"  # each split's token lengths, measured once for every rank


def _load_model_and_processor(recipe: Recipe):
    import torch
    from transformers import (
        AutoModelForCausalLM,
        AutoModelForImageTextToText,
        AutoProcessor,
        AutoTokenizer,
    )

    path = str(resolve_path(recipe.model.name_or_path))
    if not Path(path).exists():
        path = recipe.model.name_or_path  # a hub id
    kwargs: dict[str, Any] = {"dtype": getattr(torch, recipe.model.dtype)}
    if recipe.model.attn_implementation:
        kwargs["attn_implementation"] = recipe.model.attn_implementation
    if recipe.model.kind == "vl":
        pixels = {
            k: v
            for k, v in (
                ("max_pixels", recipe.data.max_pixels),
                ("min_pixels", recipe.data.min_pixels),
            )
            if v is not None
        }
        return AutoModelForImageTextToText.from_pretrained(
            path, **kwargs
        ), AutoProcessor.from_pretrained(path, **pixels)
    return AutoModelForCausalLM.from_pretrained(path, **kwargs), AutoTokenizer.from_pretrained(path)


def _lora_config(recipe: Recipe):
    from peft import LoraConfig

    spec = recipe.lora
    if spec is None:
        return None
    targets: str | list[str] = spec.target_modules
    if spec.module_scope:
        # A regex PEFT full-matches against module names: adapters only inside the scope (the
        # language
        # model), so vision-tower and merger linears with the same short names stay frozen.
        alt = "|".join(spec.target_modules)
        targets = rf"^(.*\.)?{spec.module_scope}\..*\.({alt})$"
    return LoraConfig(
        r=spec.r,
        lora_alpha=spec.alpha,
        lora_dropout=spec.dropout,
        bias=spec.bias,
        target_modules=targets,
        task_type="CAUSAL_LM",
    )


def _length_cache(out: Path, split: str, ds, recipe: Recipe, processing_class) -> Path:
    """Where the main process leaves a split's token lengths for the other ranks: named by
    everything a length depends on (the data, the model, the pixel settings, the template)."""
    image_processor = getattr(processing_class, "image_processor", None)
    key = json.dumps(
        [
            getattr(ds, "_fingerprint", None),
            recipe.model.name_or_path,
            recipe.model.kind,
            image_processor.to_json_string() if image_processor is not None else None,
            getattr(processing_class, "chat_template", None),
        ],
        sort_keys=True,
        default=str,
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return out / LENGTHS_DIR / f"{split}-{digest}.arrow"


def _prepare_data(
    recipe: Recipe, processing_class, config
) -> tuple[dict, dict[str, dict[str, int]]]:
    from training.data import (
        delete_overlength,
        load_splits,
        text_length_fn,
        text_messages,
        vl_length_fn,
    )

    # The balancer draws with the trainer's own data seed, so one recipe value decides both.
    seed = config.data_seed if config.data_seed is not None else config.seed
    splits = load_splits(
        resolve_path(recipe.data.dataset),
        recipe.data.train_split,
        recipe.data.eval_split,
        balance_by=recipe.data.balance_by,
        seed=seed,
    )
    if recipe.model.kind == "text":
        # TRL's text path wants plain-string contents; accept the part format too.
        # A text student trained on the middle-layer export reads the same prompt text and
        # drops the screenshot (vLLM on CPU serves text models only).
        splits = {
            k: v.map(
                lambda ex: {"messages": text_messages(ex["messages"])},
                remove_columns=[c for c in v.column_names if c == "images"],
                keep_in_memory=True,
            )
            for k, v in splits.items()
        }
        length = text_length_fn(processing_class)
    else:
        length = vl_length_fn(processing_class)
    out = resolve_path(recipe.output_dir)
    kept, counts = {}, {}
    for name, ds in splits.items():
        cache = _length_cache(out, name, ds, recipe, processing_class)
        # Measured once, by the world's first process; the others read its length column.
        with config.main_process_first(local=False, desc=f"measuring {name} token lengths"):
            kept[name], c = delete_overlength(
                ds, length, recipe.data.max_length, recipe.data.preprocessing_workers, cache
            )
        counts[name] = c.as_dict()
        log.warning(
            "split %s: %d examples, %d deleted as longer than %d tokens (longest seen %d)",
            name,
            c.total,
            c.deleted_overlength,
            recipe.data.max_length,
            c.longest_seen,
        )
    return kept, counts


def _meta_callback(world_size: int, recipe: Recipe):
    from transformers import TrainerCallback

    class CheckpointMeta(TrainerCallback):
        """Stamp each checkpoint with the world size: a later resume picks full or model-only."""

        def on_save(self, args, state, control, **kwargs):
            if state.is_world_process_zero:
                ckpt = Path(args.output_dir) / f"checkpoint-{state.global_step}"
                if ckpt.is_dir():
                    write_meta(ckpt, world_size, recipe.batch.micro_batch, recipe.batch.grad_accum)

    return CheckpointMeta()


def build_trainer(recipe: Recipe, world_size: int):
    """The recipe's TRL SFTTrainer, its data measured and the overlength examples deleted.

    Returns the trainer and the deletion counts per split. Nothing is trained or written yet.
    """
    from trl import SFTTrainer

    from training.cpu_lm_head import compact_on_cpu  # imports TRL: only where a trainer is built

    config = build_sft_config(recipe, resolve_path(recipe.output_dir))
    model, processing_class = _load_model_and_processor(recipe)
    template = recipe.trainer.get("chat_template_path")
    if template:
        check_training_template(processing_class, resolve_path(template), recipe.model.kind)
    data, counts = _prepare_data(recipe, processing_class, config)
    if len(data[recipe.data.train_split]) == 0:
        raise RecipeError(f"recipe {recipe.name}: no training example fits in max_length")
    compact_on_cpu()  # the LM head scores answer tokens only on a CPU too: a fifth of a step
    trainer = SFTTrainer(
        model=model,
        args=config,
        train_dataset=data[recipe.data.train_split],
        eval_dataset=data.get(recipe.data.eval_split) if recipe.data.eval_split else None,
        processing_class=processing_class,
        peft_config=_lora_config(recipe),
        callbacks=[_meta_callback(world_size, recipe)],
    )
    return trainer, counts
