"""In-context matching probe for the demo's random CPU student (WebRider Appendix E target match).

The demo student misses its target-match aim on `click "X"` / `check "X"` commands: it has to
find the label whose text equals the command's quoted word and emit that label's number. This
probe isolates that one skill: a page of 2-8 labels, one command, one answer token (the label
number), answer-only loss, the demo recipe's model size and a tokenizer trained on the probe
text. Two prompt layouts, each with two RoPE bases, train side by side from the same random
init, one process and one thread per arm:

- number-first: `[3] link "enim"` lines, command above the labels (the served prompt's layout);
- number-last: `link "enim" [3]` lines, command below the labels;
- rope_theta 1e6 (Qwen3's, the demo student's) and 1e4 (finer resolution between nearby tokens).

Held-out accuracy every `--eval-every` steps (chance = mean of 1/k over pages) goes to
benchmarks/results/matching_probe.{json,md}.

    .venv/bin/python benchmarks/bench_matching_probe.py [--steps 2000] [--rope-thetas 1e6,1e4]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import platform
import random
import string
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

RESULTS = REPO / "benchmarks" / "results"
LAYOUTS = ("number-first", "number-last")
# Half the words come from MiniWoB's lorem list (mostly one token each), half are random strings.
LOREM_TEXT = """
lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore
et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip
ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla
pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim
id est laborum
"""
LOREM = LOREM_TEXT.split()


def _word(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(LOREM)
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 8)))


def example(rng: random.Random, layout: str) -> tuple[str, str, int]:
    """(prompt, answer, number of labels) for one page and one command."""
    k = rng.randint(2, 8)
    words: list[str] = []
    while len(words) < k:
        if (w := _word(rng)) not in words:
            words.append(w)
    j = rng.randrange(k)
    command = f'Command: click "{words[j]}" link'
    if layout == "number-first":
        labels = "\n".join(f'[{i}] link "{w}"' for i, w in enumerate(words))
        prompt = f"{command}\nLabels:\n{labels}\nTarget:"
    else:
        labels = "\n".join(f'link "{w}" [{i}]' for i, w in enumerate(words))
        prompt = f"Labels:\n{labels}\n{command}\nTarget:"
    return prompt, f" {j}", k


def _batch(tok, pairs: list[tuple[str, str]]):
    """Right-padded ids, attention mask, and each row's last (answer) position."""
    import torch

    enc = [tok(p + a)["input_ids"] for p, a in pairs]
    width = max(map(len, enc))
    ids = torch.full((len(enc), width), tok.pad_token_id)
    att = torch.zeros((len(enc), width), dtype=torch.long)
    for i, e in enumerate(enc):
        ids[i, : len(e)] = torch.tensor(e)
        att[i, : len(e)] = 1
    return ids, att, att.sum(1) - 1


def _answer_only(ids, last):
    import torch

    labels = torch.full_like(ids, -100)
    rows = torch.arange(len(ids))
    labels[rows, last] = ids[rows, last]
    return labels


def train_arm(model_dir: str, layout: str, theta: float, args: dict, queue) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(1)
    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(model_dir)
    # The RoPE base only scales the rotation, so every arm starts from the same weights.
    model = AutoModelForCausalLM.from_pretrained(
        model_dir, rope_parameters={"rope_type": "default", "rope_theta": theta}
    )
    assert model.config.rope_parameters["rope_theta"] == theta
    opt = torch.optim.AdamW(model.parameters(), lr=args["lr"], betas=(0.9, 0.95))
    warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))
    rng, eval_rng = random.Random(1), random.Random(999)
    held = [example(eval_rng, layout) for _ in range(args["eval_examples"])]
    chance = sum(1 / k for _, _, k in held) / len(held)
    eval_ids, eval_att, last = _batch(tok, [(p, a) for p, a, _ in held])
    rows = []
    t0 = time.perf_counter()
    for step in range(1, args["steps"] + 1):
        ids, att, end = _batch(tok, [example(rng, layout)[:2] for _ in range(args["batch"])])
        loss = model(input_ids=ids, attention_mask=att, labels=_answer_only(ids, end)).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        warm.step()
        opt.zero_grad()
        if step % args["eval_every"] == 0 or step == args["steps"]:
            with torch.no_grad():
                logits = model(input_ids=eval_ids, attention_mask=eval_att).logits
            rows_ = torch.arange(len(held))
            pred = logits[rows_, last - 1].argmax(-1)
            acc = (pred == eval_ids[rows_, last]).float().mean().item()
            rows.append(
                {
                    "step": step,
                    "accuracy": round(acc, 4),
                    "loss": round(loss.item(), 4),
                    "s": round(time.perf_counter() - t0, 1),
                }
            )
            print(f"{layout} theta {theta:g} step {step} acc {acc:.3f}", flush=True)
    queue.put({"layout": layout, "rope_theta": theta, "chance": round(chance, 4), "curve": rows})


def _first_step(curve: list[dict], level: float) -> int | None:
    return next((r["step"] for r in curve if r["accuracy"] >= level), None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--eval-examples", type=int, default=256)
    ap.add_argument("--rope-thetas", default="1e6,1e4", help="comma-separated RoPE bases")
    args = vars(ap.parse_args())
    thetas = [float(t) for t in args.pop("rope_thetas").split(",")]

    from pathwise.demo.config import load_demo_config
    from training.tiny import build_text

    size = load_demo_config("tiny-cpu").student.model
    rng = random.Random(0)
    corpus = ["".join(example(rng, lay)[:2]) for _ in range(2000) for lay in LAYOUTS]
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = str(build_text(Path(tmp) / "model", seed=0, corpus=corpus, **size))
        ctx = mp.get_context("spawn")
        queue = ctx.Queue()
        procs = [
            ctx.Process(target=train_arm, args=(model_dir, lay, th, args, queue))
            for lay in LAYOUTS
            for th in thetas
        ]
        t0 = time.perf_counter()
        for p in procs:
            p.start()
        arms = sorted(
            (queue.get() for _ in procs),
            key=lambda a: (LAYOUTS.index(a["layout"]), thetas.index(a["rope_theta"])),
        )
        for p in procs:
            p.join()
        wall = time.perf_counter() - t0
    for arm in arms:
        arm["final_accuracy"] = arm["curve"][-1]["accuracy"]
        arm["first_step_at_50pct"] = _first_step(arm["curve"], 0.5)
        arm["first_step_at_90pct"] = _first_step(arm["curve"], 0.9)
    result = {
        "settings": args | {"model": size, "rope_thetas": thetas},
        "machine": {"platform": platform.platform(), "python": platform.python_version()},
        "wall_s": round(wall, 1),
        "arms": arms,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "matching_probe.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# In-context matching probe (demo student size, random init)",
        "",
        f"One command, 2-8 labels, answer = the matching label's number; batch {args['batch']}, "
        f"lr {args['lr']}, answer-only loss, {args['eval_examples']} held-out pages, one thread "
        f"per arm, all arms in one run ({wall / 60:.1f} min). "
        "Script: benchmarks/bench_matching_probe.py.",
        "",
        "| layout | rope_theta | chance | final accuracy | first step >= 50% | first step >= 90% |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for a in arms:
        reach = [a[f"first_step_at_{p}pct"] or "not reached" for p in (50, 90)]
        lines.append(
            f"| {a['layout']} | {a['rope_theta']:g} | {a['chance']:.1%} | "
            f"{a['final_accuracy']:.1%} | {reach[0]} | {reach[1]} |"
        )
    names = [f"{a['layout']}, theta {a['rope_theta']:g}" for a in arms]
    lines += ["", "| step | " + " | ".join(names) + " |"]
    lines.append("| ---: |" + " ---: |" * len(arms))
    for i, row in enumerate(arms[0]["curve"]):
        accs = " | ".join(f"{a['curve'][i]['accuracy']:.1%}" for a in arms)
        lines.append(f"| {row['step']} | {accs} |")
    (RESULTS / "matching_probe.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
