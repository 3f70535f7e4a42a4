"""In-context matching probe for the demo's random CPU student (WebRider Appendix E target match).

The demo student misses its target-match aim on `click "X"` / `check "X"` commands: it has to
find the label whose text equals the command's quoted word and emit that label's number. This
probe isolates that one skill: a page of 2-8 labels, one command, the answer is the label
number, answer-only loss, the demo recipe's model size and a tokenizer trained on the probe
text. Every arm starts from the same random weights; all arms of a suite train side by side in
one run, one process and one thread per arm.

Suite `layout` (results: matching_probe.{json,md}; 2,000 steps, lr 1e-3):
- number-first: `[3] link "enim"` lines, command above the labels (the served prompt's layout);
- number-last: `link "enim" [3]` lines, command below the labels;
- each with RoPE base 1e6 (Qwen3's, the demo student's) and 1e4.

Suite `remedies` (results: matching_probe_remedies.{json,md}; 1,200 steps, lr 3e-3), each
against its layout's plain arm:
- curriculum: pages of 2 labels first, one more label allowed every 150 steps;
- rationale (number-last): the answer restates the matched label's text before its number, so
  that the number follows the same tokens as in the label line (a copy, then an induction step);
- sliding window: layer 0 attends to the last 8 tokens only (local mixing from the start);
- qk-norm gain 4: Qwen3's query/key RMSNorm weights start at 4 instead of 1 (sharper attention).

Suite `scaling` (results: matching_probe_scaling.{json,md}; 6,000 steps, lr 3e-3): the two plain
layouts trained for long, to see how many pages the skill takes from random weights.

Three more 1,200-step suites (lr 3e-3) against the served layout, results matching_probe_<suite>:
- `mimetic`: mimetic initialization of the query/key maps (Trockman & Kolter, 2023), on all of
  each tied head's dimensions or on RoPE's slow ones only;
- `words`: the words all from the lorem list (one token each) or all random strings (several);
- `lr`: learning rates 1e-2 and 3e-2.

Accuracy is greedy-exact on held-out pages (every answer token right, so the number is right;
chance = mean of 1/k over pages), every `--eval-every` steps.

    .venv/bin/python benchmarks/bench_matching_probe.py --suite layout|remedies|scaling|... \
        [--steps N] [--lr LR]   (defaults: the settings each suite's results were measured at)
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
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

RESULTS = REPO / "benchmarks" / "results"
LAYOUTS = ("number-first", "number-last")
CURRICULUM_EVERY = 150
# Half the words come from MiniWoB's lorem list (mostly one token each), half are random strings.
LOREM_TEXT = """
lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore
et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip
ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla
pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim
id est laborum
"""
LOREM = LOREM_TEXT.split()


@dataclass(frozen=True)
class Arm:
    name: str
    layout: str
    rope_theta: float = 1e6
    curriculum: bool = False
    rationale: bool = False
    sliding_window: int = 0
    qk_norm_gain: float = 1.0
    mimetic: str = ""  # "", "all" or "low-freq": _mimetic_init
    words: str = "mixed"  # "mixed", "lorem" (one token each) or "random" (several tokens)
    lr: float | None = None  # None: the suite's


@dataclass(frozen=True)
class Suite:
    """Arms trained side by side, with the settings their committed results were measured at."""

    arms: tuple[Arm, ...]
    steps: int = 2000
    lr: float = 1e-3
    eval_every: int = 100


SUITES: dict[str, Suite] = {
    "layout": Suite(
        tuple(
            Arm(f"{lay}, theta {th:g}", lay, rope_theta=th) for lay in LAYOUTS for th in (1e6, 1e4)
        )
    ),
    # lr 3e-3 is the demo's base-stage rate; 1,200 steps are about the pages that stage sees.
    "remedies": Suite(
        (
            Arm("number-first (served layout)", "number-first"),
            Arm("number-first + curriculum", "number-first", curriculum=True),
            Arm("number-first + sliding window 8 in layer 0", "number-first", sliding_window=8),
            Arm("number-first + qk-norm gain 4", "number-first", qk_norm_gain=4.0),
            Arm("number-last", "number-last"),
            Arm("number-last + rationale", "number-last", rationale=True),
        ),
        steps=1200,
        lr=3e-3,
    ),
    "mimetic": Suite(
        (
            Arm("number-first (served layout)", "number-first"),
            Arm("number-first + mimetic", "number-first", mimetic="all"),
            Arm("number-first + mimetic, low-freq", "number-first", mimetic="low-freq"),
        ),
        steps=1200,
        lr=3e-3,
    ),
    # Which half of the words holds the served layout back: one-token or several-token ones.
    "words": Suite(
        (
            Arm("number-first, lorem words only", "number-first", words="lorem"),
            Arm("number-first, random strings only", "number-first", words="random"),
        ),
        steps=1200,
        lr=3e-3,
    ),
    # Whether a larger step shortens the plateau (Qwen3's query/key norms keep attention bounded).
    "lr": Suite(
        (
            Arm("number-first, lr 1e-2", "number-first", lr=1e-2),
            Arm("number-first, lr 3e-2", "number-first", lr=3e-2),
        ),
        steps=1200,
        lr=3e-3,
    ),
    # The two plain layouts trained for long: how many pages the skill takes.
    "scaling": Suite(
        (Arm("number-first (served layout)", "number-first"), Arm("number-last", "number-last")),
        steps=6000,
        lr=3e-3,
        eval_every=250,
    ),
}


def _word(rng: random.Random, words_from: str = "mixed") -> str:
    if words_from == "lorem" or (words_from == "mixed" and rng.random() < 0.5):
        return rng.choice(LOREM)
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 8)))


def example(
    rng: random.Random,
    layout: str,
    max_labels: int = 8,
    rationale: bool = False,
    words_from: str = "mixed",
) -> tuple[str, str, int]:
    """(prompt, answer, number of labels) for one page and one command."""
    k = rng.randint(2, max_labels)
    words: list[str] = []
    while len(words) < k:
        if (w := _word(rng, words_from)) not in words:
            words.append(w)
    j = rng.randrange(k)
    command = f'Command: click "{words[j]}" link'
    if layout == "number-first":
        labels = "\n".join(f'[{i}] link "{w}"' for i, w in enumerate(words))
        prompt = f"{command}\nLabels:\n{labels}\nTarget:"
    else:
        labels = "\n".join(f'link "{w}" [{i}]' for i, w in enumerate(words))
        prompt = f"Labels:\n{labels}\n{command}\nTarget:"
    return prompt, (f' "{words[j]}" [{j}]' if rationale else f" {j}"), k


def _batch(tok, pairs: list[tuple[str, str]]):
    """Right-padded ids, attention mask, answer-span labels and each row's answer span."""
    import torch

    prompts = [tok(p)["input_ids"] for p, _ in pairs]
    enc = [tok(p + a)["input_ids"] for p, a in pairs]
    width = max(map(len, enc))
    ids = torch.full((len(enc), width), tok.pad_token_id)
    att = torch.zeros((len(enc), width), dtype=torch.long)
    labels = torch.full((len(enc), width), -100)
    spans = []
    for i, (p, e) in enumerate(zip(prompts, enc, strict=True)):
        ids[i, : len(e)] = torch.tensor(e)
        att[i, : len(e)] = 1
        labels[i, len(p) : len(e)] = ids[i, len(p) : len(e)]
        spans.append((len(p), len(e)))
    return ids, att, labels, spans


def _number_position(tok, ids, span: tuple[int, int]) -> int:
    """The label number's position inside the answer span (the last digit token)."""
    return max(t for t in range(*span) if tok.decode([int(ids[t])]).strip().isdigit())


def _load(model_dir: str, arm: Arm):
    from transformers import AutoModelForCausalLM

    kwargs: dict = {"rope_parameters": {"rope_type": "default", "rope_theta": arm.rope_theta}}
    if arm.sliding_window:
        n = json.loads((Path(model_dir) / "config.json").read_text())["num_hidden_layers"]
        kwargs |= {
            "layer_types": ["sliding_attention"] + ["full_attention"] * (n - 1),
            "sliding_window": arm.sliding_window,
            "use_sliding_window": True,
        }
    # The RoPE base, the window and the norm gain change no weight shapes, so every arm starts
    # from the same saved random weights.
    model = AutoModelForCausalLM.from_pretrained(model_dir, **kwargs)
    assert model.config.rope_parameters["rope_theta"] == arm.rope_theta
    if arm.sliding_window:
        assert model.config.layer_types[0] == "sliding_attention"
    for name, p in model.named_parameters():
        if name.endswith(("q_norm.weight", "k_norm.weight")):
            p.data.mul_(arm.qk_norm_gain)
    if arm.mimetic:
        _mimetic_init(model, low_freq_only=arm.mimetic == "low-freq")
    return model


def _mimetic_init(model, low_freq_only: bool) -> None:
    """Mimetic initialization (Trockman & Kolter, ICML 2023): pretrained attention has
    W_Q W_K^T near a multiple of the identity, i.e. a query scores highest the keys of its own
    token, which is the lookup this probe measures. The first query head of each key/value group
    takes its key projection's weights, so W_Q W_K^T starts positive semi-definite. With
    `low_freq_only` the tied head scores only on RoPE's slowest-turning pairs, alike at any
    distance (rotate_half pairs dim i with i + hd/2 at base^(-2i/hd): small i turn fast)."""
    import torch

    cfg = model.config
    hd, group = cfg.head_dim, cfg.num_attention_heads // cfg.num_key_value_heads
    fast = torch.zeros(hd, dtype=torch.bool)
    if low_freq_only:
        fast[: hd // 4] = True
        fast[hd // 2 : hd // 2 + hd // 4] = True
    with torch.no_grad():
        for layer in model.model.layers:
            attn = layer.self_attn
            for g in range(cfg.num_key_value_heads):
                q = attn.q_proj.weight[g * group * hd : (g * group + 1) * hd]
                q.copy_(attn.k_proj.weight[g * hd : (g + 1) * hd])
                q[fast] = 0.0


def train_arm(model_dir: str, arm: Arm, args: dict, queue) -> None:
    import torch
    from transformers import AutoTokenizer

    torch.set_num_threads(1)
    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = _load(model_dir, arm)
    opt = torch.optim.AdamW(model.parameters(), lr=arm.lr or args["lr"], betas=(0.9, 0.95))
    warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))
    rng, eval_rng = random.Random(1), random.Random(999)
    held = [
        example(eval_rng, arm.layout, rationale=arm.rationale, words_from=arm.words)
        for _ in range(args["eval_examples"])
    ]
    chance = sum(1 / k for _, _, k in held) / len(held)
    eval_ids, eval_att, _, eval_spans = _batch(tok, [(p, a) for p, a, _ in held])
    numbers = [_number_position(tok, eval_ids[i], s) for i, s in enumerate(eval_spans)]
    rows = []
    t0 = time.perf_counter()
    for step in range(1, args["steps"] + 1):
        most = min(8, 2 + (step - 1) // CURRICULUM_EVERY) if arm.curriculum else 8
        pages = [
            example(rng, arm.layout, most, arm.rationale, arm.words)[:2]
            for _ in range(args["batch"])
        ]
        ids, att, labels, _ = _batch(tok, pages)
        loss = model(input_ids=ids, attention_mask=att, labels=labels).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        warm.step()
        opt.zero_grad()
        if step % args["eval_every"] == 0 or step == args["steps"]:
            with torch.no_grad():
                pred = model(input_ids=eval_ids, attention_mask=eval_att).logits.argmax(-1)
            # Teacher-forced argmax right on every answer token == greedy decoding exact.
            exact = [
                bool((pred[i, a - 1 : b - 1] == eval_ids[i, a:b]).all())
                for i, (a, b) in enumerate(eval_spans)
            ]
            number = [bool(pred[i, t - 1] == eval_ids[i, t]) for i, t in enumerate(numbers)]
            acc, num_acc = sum(exact) / len(held), sum(number) / len(held)
            rows.append(
                {
                    "step": step,
                    "accuracy": round(acc, 4),
                    "number_accuracy": round(num_acc, 4),
                    "loss": round(loss.item(), 4),
                    "s": round(time.perf_counter() - t0, 1),
                }
            )
            print(f"{arm.name}: step {step} acc {acc:.3f} number {num_acc:.3f}", flush=True)
    queue.put(asdict(arm) | {"chance": round(chance, 4), "curve": rows})


def _first_step(curve: list[dict], level: float) -> int | None:
    return next((r["step"] for r in curve if r["accuracy"] >= level), None)


def _markdown(suite: str, arms: list[dict], args: dict, wall: float) -> list[str]:
    lr = "as each arm names" if any(a.get("lr") for a in arms) else args["lr"]
    lines = [
        f"# In-context matching probe, suite `{suite}` (demo student size, random init)",
        "",
        f"One command, 2-8 labels, answer = the matching label's number; batch {args['batch']}, "
        f"lr {lr}, loss on the answer tokens only, {args['eval_examples']} held-out "
        "pages, greedy-exact accuracy (*number*: the label number alone, teacher-forced), one "
        f"thread per arm, all arms in one run ({wall / 60:.1f} min). "
        f"Script: `benchmarks/bench_matching_probe.py --suite {suite}`.",
        "",
        "| arm | chance | final accuracy | final number accuracy | first step >= 50% "
        "| first step >= 90% |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for a in arms:
        reach = [a[f"first_step_at_{p}pct"] or "not reached" for p in (50, 90)]
        lines.append(
            f"| {a['name']} | {a['chance']:.1%} | {a['final_accuracy']:.1%} | "
            f"{a['curve'][-1]['number_accuracy']:.1%} | {reach[0]} | {reach[1]} |"
        )
    lines += ["", "| step | " + " | ".join(a["name"] for a in arms) + " |"]
    lines.append("| ---: |" + " ---: |" * len(arms))
    for i, row in enumerate(arms[0]["curve"]):
        accs = " | ".join(f"{a['curve'][i]['accuracy']:.1%}" for a in arms)
        lines.append(f"| {row['step']} | {accs} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--suite", choices=sorted(SUITES), default="layout", help="which arms (default: layout)"
    )
    ap.add_argument("--steps", type=int, help="updates per arm (default: the suite's)")
    ap.add_argument("--batch", type=int, default=32, help="pages per update (default: 32)")
    ap.add_argument("--lr", type=float, help="AdamW learning rate (default: the suite's)")
    ap.add_argument("--eval-every", type=int, help="steps between evaluations (default: suite's)")
    ap.add_argument("--eval-examples", type=int, default=256, help="held-out pages per arm")
    args = vars(ap.parse_args())
    suite = args.pop("suite")
    plan = SUITES[suite]
    for key in ("steps", "lr", "eval_every"):
        if args[key] is None:
            args[key] = getattr(plan, key)

    from base_models.tiny import build_text
    from pathwise.demo.config import load_demo_config

    size = load_demo_config("random-base-cpu").student.model
    rng = random.Random(0)
    corpus = [
        "".join(example(rng, lay, rationale=True)[:2]) for _ in range(2000) for lay in LAYOUTS
    ]
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = str(build_text(Path(tmp) / "model", seed=0, corpus=corpus, **size))
        ctx = mp.get_context("spawn")
        queue = ctx.Queue()
        procs = [ctx.Process(target=train_arm, args=(model_dir, a, args, queue)) for a in plan.arms]
        t0 = time.perf_counter()
        for p in procs:
            p.start()
        names = [a.name for a in plan.arms]
        arms = sorted((queue.get() for _ in procs), key=lambda a: names.index(a["name"]))
        for p in procs:
            p.join()
        wall = time.perf_counter() - t0
    for arm in arms:
        arm["final_accuracy"] = arm["curve"][-1]["accuracy"]
        arm["first_step_at_50pct"] = _first_step(arm["curve"], 0.5)
        arm["first_step_at_90pct"] = _first_step(arm["curve"], 0.9)
    result = {
        "suite": suite,
        "settings": args | {"model": size},
        "machine": {"platform": platform.platform(), "python": platform.python_version()},
        "wall_s": round(wall, 1),
        "arms": arms,
    }
    stem = "matching_probe" if suite == "layout" else f"matching_probe_{suite}"
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = _markdown(suite, arms, args, wall)
    (RESULTS / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
