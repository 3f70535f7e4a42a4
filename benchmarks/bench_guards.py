"""Guard compiler throughput (WebRider Appendix H, Tables 45-46): microseconds per raw action.

    .venv/bin/python -m benchmarks.bench_guards [--rounds N]   # about 10 s

Writes benchmarks/results/guards.{json,md}.
"""
# ruff: noqa: E501  (raw model outputs are kept on one line, as a model emits them)

from __future__ import annotations

import argparse
import random
import statistics
import time

from agent_runtime.guards import compile_action, detect_access_signal
from benchmarks.harness import parse, spread, write_results
from contracts.history import RecentAction, RecentHistory
from contracts.observation import BBox, ElementLabel, Observation

AIM_MEDIAN_US = 50
WORDS = [
    "usb",
    "hub",
    "port",
    "price",
    "shipping",
    "free",
    "returns",
    "rating",
    "reviews",
    "stock",
    "add",
    "cart",
    "compare",
    "brand",
    "model",
    "warranty",
    "delivery",
    "store",
    "pickup",
    "color",
    "black",
    "silver",
    "aluminum",
    "cable",
    "length",
    "meter",
]

# A realistic mix of what a middle model emits: mostly valid, then fenced/aliased output,
# then malformed and prose replies. The weights are the corpus counts.
CORPUS: list[tuple[str, str, int]] = [
    (
        "valid",
        '{"action": {"type": "click", "target": 14}, "fallback": {"type": "scroll", "target": "window", "direction": "down"}}',
        20,
    ),
    (
        "valid",
        '{"action": {"type": "type", "target": 3, "text": "usb c hub 7 port", "submit": true}, "fallback": {"type": "wait", "reason": "loading", "seconds": 1.0}}',
        10,
    ),
    (
        "valid",
        '{"action": {"type": "search", "query": "site:shop.example usb c hub under $40"}, "fallback": {"type": "back", "reason": "history"}}',
        6,
    ),
    (
        "valid",
        '{"action": {"type": "scroll", "target": "window", "direction": "down"}, "fallback": {"type": "back", "reason": "dead_end"}}',
        6,
    ),
    (
        "valid",
        '{"action": {"type": "back", "reason": "history"}, "fallback": {"type": "wait", "reason": "loading", "seconds": 1.0}}',
        3,
    ),
    (
        "fenced",
        '```json\n{"action": {"type": "click", "target": 22}, "fallback": {"type": "scroll", "direction": "down"}}\n```',
        8,
    ),
    (
        "fenced",
        '```\n{"action": {"type": "google_search", "query": "usb c hub 4k hdmi"}, "fallback": {"type": "go_back"}}\n```',
        4,
    ),
    (
        "aliased",
        '{"action": {"type": "google_search", "query": "usb c hub review"}, "fallback": {"type": "go_back"}}',
        6,
    ),
    ("aliased", '{"type": "click", "label": "[31]"}', 6),
    (
        "aliased",
        '{"action": {"type": "fill", "element": "3", "value": "hub"}, "fallback": {"type": "scroll_down"}}',
        4,
    ),
    ("aliased", '{"action": "scroll_down"}', 3),
    (
        "prose",
        'I will click the "Add to cart" button. {"action": {"type": "click", "target": 40}, "fallback": {"type": "back"}} This should add it.',
        5,
    ),
    ("prose", "The best next step is to click the blue button on the right.", 4),
    ("malformed", '{"action": {"type": "click", "target": "the blue button"}}', 3),
    (
        "malformed",
        '{"action": {"type": "click", "target": 999}, "fallback": {"type": "scroll"}}',
        3,
    ),
    ("malformed", '{"action": {"type": "answer", "text": "The hub costs $39.99"}}', 3),
    (
        "malformed",
        '{"action": {"type": "google_maps", "query": "electronics store"}, "fallback": {"type": "google_search", "query": "electronics store"}}',
        2,
    ),
    (
        "malformed",
        '{"action": {"type": "type", "target": 3, "text": ""}, "fallback": {"type": "back"}}',
        2,
    ),
    ("malformed", '{"action": {"type": "click", "target": 14,}, "fallback": {"type": "back"}', 2),
    ("malformed", '{"action": {"type": "hover", "target": 14}}', 2),
]


def make_observation(rng: random.Random, n_labels: int = 60, text_chars: int = 1500) -> Observation:
    labels = [
        ElementLabel(
            label=i,
            role=rng.choice(["link", "button", "textbox", "checkbox"]),
            tag="a",
            text=" ".join(rng.choices(WORDS, k=3)),
            bbox=BBox(x=10, y=20 * i, width=120, height=18),
        )
        for i in range(n_labels)
    ]
    text = " ".join(rng.choices(WORDS, k=text_chars // 5))[:text_chars]
    return Observation(
        url="http://127.0.0.1:8000/shop/search?q=usb+c+hub",
        title="Results - Shop",
        status=200,
        labels=labels,
        page_text=text,
    ).with_state_hash()


def make_history(obs: Observation) -> RecentHistory:
    hist = RecentHistory()
    for i, (kind, action) in enumerate(
        [
            ("click", '{"type":"click","target":5}'),
            ("scroll", '{"type":"scroll","target":"window","direction":"down"}'),
            ("type", '{"type":"type","target":3,"text":"hub","submit":true}'),
            ("click", '{"type":"click","target":14}'),
            ("scroll", '{"type":"scroll","target":"window","direction":"down"}'),
        ]
    ):
        hist = hist.push(
            RecentAction(
                step_index=i, url=obs.url, action=action, action_type=kind, state_hash=f"h{i}"
            )
        )
    return hist


def run(rounds: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    obs = make_observation(rng)
    hist = make_history(obs)
    corpus = [(kind, raw) for kind, raw, w in CORPUS for _ in range(w)]
    for _, raw in corpus * 5:  # warm caches and the allocator
        compile_action(raw, obs, hist)
    per_kind: dict[str, list[float]] = {}
    samples: list[float] = []
    clock = time.perf_counter_ns
    for _ in range(rounds):
        rng.shuffle(corpus)
        for kind, raw in corpus:
            t0 = clock()
            compile_action(raw, obs, hist)
            dt = (clock() - t0) / 1e3
            samples.append(dt)
            per_kind.setdefault(kind, []).append(dt)
    # Access detection is a per-observation cost; measure it on pages it has never seen.
    cold: list[float] = []
    for o in [make_observation(rng) for _ in range(200)]:
        t0 = clock()
        detect_access_signal(o)
        cold.append((clock() - t0) / 1e3)
    # First compile on a never-seen observation (what a runner step pays).
    first: list[float] = []
    for o in [make_observation(rng) for _ in range(200)]:
        t0 = clock()
        compile_action(CORPUS[0][1], o, hist)
        first.append((clock() - t0) / 1e3)
    return {
        "unit": "microseconds",
        "distinct_raw_outputs": len(CORPUS),
        "observation": {"labels": len(obs.labels), "page_text_chars": len(obs.page_text)},
        "all": spread(samples, digits=2) | {"mean": round(statistics.fmean(samples), 2)},
        "per_kind": {k: spread(v, digits=2) for k, v in sorted(per_kind.items())},
        "first_compile_on_new_observation": spread(first, digits=2),
        "access_detection_cold": spread(cold, digits=2),
        "aim_median_us": AIM_MEDIAN_US,
    }


def markdown(res: dict) -> str:
    a, ob = res["all"], res["observation"]
    md = [
        "# Guard compiler throughput",
        "",
        f"`python -m benchmarks.bench_guards`: {a['n']} compiles of {res['distinct_raw_outputs']} "
        f"distinct raw middle outputs (valid, fenced, aliased, prose, malformed) against one "
        f"observation with {ob['labels']} labels and {ob['page_text_chars']} chars of page text, "
        "with a 5-step history.",
        "",
        "| corpus slice | n | median (µs) | p95 (µs) |",
        "| --- | --- | --- | --- |",
        f"| **all** | {a['n']} | **{a['median']}** | **{a['p95']}** |",
    ]
    for k, v in res["per_kind"].items():
        md.append(f"| {k} | {v['n']} | {v['median']} | {v['p95']} |")
    fc, ac = res["first_compile_on_new_observation"], res["access_detection_cold"]
    md += [
        "",
        f"First compile on a never-seen observation (what one runner step pays, access scan "
        f"included): median {fc['median']} µs, p95 {fc['p95']} µs. `detect_access_signal` alone "
        f"on a new page: median {ac['median']} µs, p95 {ac['p95']} µs.",
        "",
        f"Aim: median under {res['aim_median_us']} µs per raw action.",
    ]
    return "\n".join(md)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200)
    args = parse(ap, "guards")
    res = run(args.rounds)
    write_results("guards", res, markdown(res), overwrite=args.overwrite, results=args.results)


if __name__ == "__main__":
    main()
