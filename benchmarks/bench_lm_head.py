"""A CPU training step's LM head: every position (TRL's own CPU path) against labelled ones only.

Builds the recipe's trainer exactly as training/sft.py does (`build_trainer` of
training/sft_trainer.py: the pretrained base, the real export, the recipe's LoRA and
precision), takes its first N micro-batches, and times forward + backward
(`trainer.training_step`) over them in two arms that alternate each round
(harness.side_by_side): TRL 1.16 projecting every position onto the vocabulary, and
training/cpu_lm_head.py projecting only the labelled ones. No optimizer step runs, so both arms
see the same weights and their losses are compared micro-batch by micro-batch.
Writes benchmarks/results/lm_head.{json,md}.

    .venv/bin/python -m benchmarks.bench_lm_head --model runs/models/smollm2-135m-instruct \
        --dataset runs/clause-model/data [--recipe training/recipes/demo-clause-smollm2.yaml] \
        [--batches 8] [--rounds 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch
import trl.trainer.utils as trl_utils

from benchmarks.harness import parse, side_by_side, write_results
from training.sft import apply_overrides, build_parser
from training.sft_config import load_recipe, with_resolved_precision
from training.sft_trainer import build_trainer

REPO = Path(__file__).resolve().parent.parent
RECIPE = REPO / "training/recipes/demo-clause-smollm2.yaml"
EVERY, LABELLED = "every position (TRL on a CPU)", "labelled positions only"


def _trainer(recipe: Path, model: Path, dataset: Path, out: Path):
    argv = ["--recipe", str(recipe), "--model", str(model), "--dataset", str(dataset)]
    args = build_parser().parse_args([*argv, "--output-dir", str(out)])
    resolved, why = with_resolved_precision(apply_overrides(load_recipe(recipe), args))
    trainer, _ = build_trainer(resolved, world_size=1)
    return trainer, resolved.precision, why


def _shown(path: Path) -> str:
    path = path.resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", type=Path, required=True, help="imported SmolLM2 directory")
    ap.add_argument("--dataset", type=Path, required=True, help="the clause export (DatasetDict)")
    ap.add_argument("--recipe", type=Path, default=RECIPE)
    ap.add_argument("--batches", type=int, default=8, help="micro-batches timed per arm and round")
    ap.add_argument("--rounds", type=int, default=3)
    args = parse(ap, "lm_head")
    every_position = trl_utils._use_triton  # before build_trainer wraps it
    with tempfile.TemporaryDirectory(prefix="bench-lm-head-") as tmp:
        trainer, precision, why = _trainer(args.recipe, args.model, args.dataset, Path(tmp))
        labelled_only = trl_utils._use_triton
        assert labelled_only is not every_position, "compact_on_cpu() did not patch TRL"
        loader = iter(trainer.get_train_dataloader())
        batches = [next(loader) for _ in range(args.batches)]
        labelled = [int((b["labels"][:, 1:] != -100).sum()) for b in batches]
        model = trainer.model
        model.train()

        def arm(name: str, use_triton):
            def one(round_: int) -> list[float]:
                trl_utils._use_triton = use_triton
                losses, t0 = [], time.perf_counter()
                for batch, n in zip(batches, labelled, strict=True):
                    losses.append(float(trainer.training_step(model, dict(batch), n)))
                    model.zero_grad(set_to_none=True)
                which = "warm-up" if round_ < 0 else f"round {round_ + 1}/{args.rounds}"
                print(f"[lm_head] {which}, {name}: {time.perf_counter() - t0:.1f} s", flush=True)
                return losses

            return one

        arms_ = {EVERY: arm(EVERY, every_position), LABELLED: arm(LABELLED, labelled_only)}
        timed = side_by_side(arms_, args.rounds, warmup=True)
        trl_utils._use_triton = labelled_only
    tokens = sum(int(b["attention_mask"].sum()) for b in batches)
    labels = sum(labelled)
    losses = {name: a["outputs"][0] for name, a in timed.items()}
    diff = max(abs(x - y) for x, y in zip(losses[EVERY], losses[LABELLED], strict=True))
    arms = {
        name: {
            "s_per_micro_batch": round(a["seconds"]["median"] / args.batches, 3),
            "seconds_per_round": a["seconds"],
        }
        for name, a in timed.items()
    }
    saving = 1 - arms[LABELLED]["s_per_micro_batch"] / arms[EVERY]["s_per_micro_batch"]
    doc = {
        "recipe": _shown(args.recipe),
        "precision": precision,
        "precision_reason": why,
        "threads": torch.get_num_threads(),
        "micro_batches": args.batches,
        "rounds": args.rounds,
        "tokens": tokens,
        "labelled_tokens": labels,
        "arms": arms,
        "saving": round(saving, 3),
        "max_loss_difference": diff,
        "losses": losses,
    }
    md = [
        "# The LM head of a CPU training step: every position against labelled ones only",
        "",
        f"`{doc['recipe']}` built by `build_trainer` (training/sft_trainer.py: the real base and "
        "export), "
        f"its first {args.batches} micro-batches (the length-grouped sampler puts the longest "
        f"first: {tokens} tokens, {labels} of them labelled, {labels / tokens:.0%}), forward + "
        f"backward per micro-batch, {args.rounds} rounds with the arms alternating, "
        f"{precision} ({why}), {doc['threads']} threads; medians.",
        "",
        "| LM head | s per micro-batch | round min / max s |",
        "| --- | ---: | ---: |",
        *[
            f"| {name} | {a['s_per_micro_batch']} | {a['seconds_per_round']['min']:.2f} / "
            f"{a['seconds_per_round']['max']:.2f} |"
            for name, a in arms.items()
        ],
        "",
        f"Scoring only the labelled positions saves {saving:.0%} of a micro-batch's forward and "
        f"backward. The two arms' losses differ by at most {diff:.1e} per micro-batch: the "
        "masked positions add nothing to the loss or its gradients (tests/training/"
        "test_cpu_lm_head.py compares the gradients too).",
        "",
    ]
    write_results("lm_head", doc, "\n".join(md), overwrite=args.overwrite, results=args.results)


if __name__ == "__main__":
    main()
