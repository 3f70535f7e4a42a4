"""Can the demo's small pretrained model be OdoBot's trajectory picker? (OdoBot Section IV)

The paper embeds the generalised task, takes the top 15 trajectories and lets an LLM pick one.
Here the model at hand is SmolLM2-135M-Instruct (`pathwise models import`). It ranks the hybrid
matcher's top K by the conditional log-likelihood of each trajectory's text after the task
(mean per token), zero-shot, with no generation to parse. Scored on the 60 demonstrations' own
task texts only (the held-out instances are never looked at), beside the hybrid matcher alone.
Writes benchmarks/results/odobot_llm_pick.{json,md}.

    .venv/bin/python benchmarks/bench_odobot_llm_pick.py --model runs/demo/base/model \
        --graph runs/bench-odobot/model/graph.json [--k 5]
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
RESULTS = REPO / "benchmarks" / "results"


def _lead(d: str) -> str:
    return d.split(".")[0]


def _steps(d: str) -> str:
    return d.split("Log in, then ")[-1].split(". The application")[0]


# The description's lead sentence ("Create a people"), its user steps, or both.
VIEWS = {
    "lead": _lead,
    "steps": _steps,
    "lead + steps": lambda d: f"{_lead(d)}: {_steps(d)}",
}


class Scorer:
    def __init__(self, model_dir: Path) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.torch = torch
        self.tok = AutoTokenizer.from_pretrained(model_dir)
        self.lm = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()

    @functools.lru_cache(maxsize=1)  # noqa: B019 -- one scorer per run; every candidate of a task
    def _prompt_ids(self, task: str) -> Any:
        msgs = [{"role": "user", "content": f"Task: {task}\nWhich application feature does it?"}]
        prompt = self.tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
        return self.tok(prompt, return_tensors="pt").input_ids

    def loglik(self, task: str, candidate: str) -> float:
        torch = self.torch
        p = self._prompt_ids(task)
        c = self.tok(candidate + "<|im_end|>", add_special_tokens=False, return_tensors="pt")
        ids = torch.cat([p, c.input_ids], 1)
        with torch.no_grad():
            logp = self.lm(ids).logits[0, p.shape[1] - 1 : -1].log_softmax(-1)
        return float(logp.gather(1, c.input_ids[0][:, None]).mean())


def main() -> None:
    from odobot.graph import load_graph
    from odobot.pipeline import OdoConfig, demo_instances
    from odobot.target import HybridMatcher, generalize

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--graph", type=Path, required=True)
    ap.add_argument("--k", type=int, default=5)
    args = ap.parse_args()
    descriptions = load_graph(args.graph).graph["descriptions"]
    ids = sorted(descriptions)
    matcher = HybridMatcher([descriptions[t] for t in ids])
    scorer = Scorer(args.model)
    _, demos = demo_instances(OdoConfig())
    right = {"hybrid": 0, "in top k": 0} | {v: 0 for v in VIEWS}
    misses: dict[str, list[str]] = {v: [] for v in ["hybrid", *VIEWS]}
    for inst in demos:
        task = generalize(inst.text)
        top = [ids[int(k)] for k in np.argsort(-matcher.scores(task))[: args.k]]
        want = f"demo-{inst.template_id}"
        right["in top k"] += want in top
        right["hybrid"] += top[0] == want
        if top[0] != want:
            misses["hybrid"].append(inst.template_id)
        for view, cut in VIEWS.items():
            pick = max(top, key=lambda t, cut=cut: scorer.loglik(task, cut(descriptions[t])))
            right[view] += pick == want
            if pick != want:
                misses[view].append(inst.template_id)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = {"k": args.k, "tasks": len(demos), "right_first": right, "misses": misses}
    (RESULTS / "odobot_llm_pick.json").write_text(json.dumps(out, indent=2))
    lines = [
        "# OdoBot trajectory pick: SmolLM2-135M-Instruct vs the hybrid matcher "
        "(benchmarks/bench_odobot_llm_pick.py)",
        "",
        f"The {len(demos)} demonstrations' own task texts, generalised; the model reranks the "
        f"hybrid matcher's top {args.k} by the mean log-likelihood of a trajectory's text after "
        f"the task (zero-shot). The right trajectory is in the top {args.k} for "
        f"{right['in top k']} of {len(demos)}.",
        "",
        "| picker | right first | misses |",
        "| --- | ---: | --- |",
        f"| hybrid matcher alone (shipped) | {right['hybrid']} | {', '.join(misses['hybrid'])} |",
    ]
    for view in VIEWS:
        miss = misses[view]
        shown = ", ".join(miss[:8]) + (f", ... ({len(miss)})" if len(miss) > 8 else "")
        lines.append(f"| SmolLM2-135M rerank, text: {view} | {right[view]} | {shown} |")
    (RESULTS / "odobot_llm_pick.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
