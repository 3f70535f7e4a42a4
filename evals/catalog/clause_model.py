"""The clause-to-AST fallback scored on prose it never saw: KnowPlan, "Metrics" (normalized
prerequisite-AST accuracy) and Table 5 (the "- model fallback" row is the grammar-only column).

Two sets, neither trained on:
- the generator's held-out families (the `eval` split of `pathwise export clauses`): phrasings
  and subjects no training record has;
- the hand-labelled real St. Olaf strings (data/catalogs/stolaf-prereqs/devset.jsonl): its
  `dev` part (read while the generator was built) and its `test` part (scored only), each string
  scored grammar only, grammar + model (the model on the spans the grammar left), and on the
  strings the grammar alone cannot type, the model alone on the whole string. The unresolved
  pool (strings whose text does not determine one label) is counted and left out, as KnowPlan's
  annotation does.

Equivalence is logical equivalence over atoms (catalogbrowse/prereq/normalize.py).
`pathwise bench clause-model` runs it on a trained model.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalogbrowse.emit import type_prose
from catalogbrowse.fallback import ClauseModel
from catalogbrowse.prereq import parse_prereq
from catalogbrowse.prereq.normalize import equivalent
from evals.offline.data import load_manifest

DEVSET = Path("data/catalogs/stolaf-prereqs/devset.jsonl")
SUBJECTS = Path("data/catalogs/stolaf-prereqs/subjects.json")


@dataclass(frozen=True)
class Labelled:
    text: str
    ast: Any  # a clause node as JSON, or None (no requirement)
    split: str = "dev"
    pool: bool = False
    note: str = ""


def load_labelled(path: Path) -> list[Labelled]:
    """The labelled strings; ValueError naming the line for a malformed one."""
    out = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            out.append(
                Labelled(r["text"], r["ast"], r.get("split", "dev"), r.get("pool", False),
                         r.get("note", ""))
            )  # fmt: skip
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path} line {number}: {exc!r}") from None
    return out


class Cached:
    """The model called once per distinct span (greedy decoding: the same span, the same answer),
    with the calls, seconds and completion tokens it cost."""

    def __init__(self, model: ClauseModel) -> None:
        self.model = model
        self.answers: dict[str, Any] = {}
        self.calls = 0
        self.seconds: list[float] = []
        self.tokens = 0
        self.filled: Counter = Counter()  # spans answered by `fill`, untimed

    def __call__(self, span: str) -> Any:
        if span not in self.answers:
            t0 = time.perf_counter()
            res = self.model(span)
            self.seconds.append(time.perf_counter() - t0)
            self.calls += res.calls
            self.tokens += res.completion_tokens
            self.answers[span] = res.clause
        return self.answers[span]

    def fill(self, spans: list[str], workers: int) -> None:
        """Answer every span not cached yet with `workers` requests in flight: a server batches
        them, so a training curve's checkpoints are scored in a fraction of the sequential time.
        Their seconds are not latency and are not kept; latency is measured one span at a time."""
        from concurrent.futures import ThreadPoolExecutor

        todo = list(dict.fromkeys(s for s in spans if s not in self.answers))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for span, res in zip(todo, pool.map(self.model, todo), strict=True):
                self.filled["calls"] += res.calls
                self.filled["tokens"] += res.completion_tokens
                self.answers[span] = res.clause
        self.filled["spans"] += len(todo)

    def stats(self) -> dict[str, Any]:
        xs = sorted(self.seconds)
        return {
            "spans": len(xs),
            "calls": self.calls,
            "median_seconds_per_span": round(xs[len(xs) // 2], 3) if xs else None,
            "completion_tokens_per_span": round(self.tokens / len(xs), 1) if xs else None,
            # One span at a time, as the fallback calls it: sequential throughput.
            "spans_per_minute": round(60 * len(xs) / sum(xs), 1) if xs and sum(xs) else None,
        } | ({"filled": dict(self.filled)} if self.filled else {})


def _node(clause: Any) -> Any:
    return None if clause is None else clause.prerequisite


def _ok(pred: Any, gold: Any) -> bool:
    return equivalent(pred, gold)


def score_heldout(
    fb: Cached, data: Path, k: int | None = None, progress: Callable[[str], Any] | None = None
) -> dict[str, Any]:
    """AST equivalence on the held-out families' records: the model alone on each span, and the
    grammar with the model on what it leaves; per record kind (segment, none, string)."""
    from datasets import load_from_disk

    ev = load_from_disk(str(data))["eval"]
    rows = _pick(len(ev), k)
    subjects = _generator_subjects(data)
    # The records' enums were read with the generator's department names ("Art History 105" is
    # ARTH 105), so the model is asked under the same table; the caller's is put back after.
    own, fb.model.subjects = fb.model.subjects, subjects
    try:
        return _score_rows(fb, ev, rows, subjects, progress) | {"families": _eval_families(data)}
    finally:
        fb.model.subjects = own


def _pick(n: int, k: int | None) -> list[int]:
    rows = list(range(n))
    return sorted(random.Random(0).sample(rows, k)) if k is not None and k < n else rows


def heldout_spans(data: Path, k: int | None = None) -> list[str]:
    """Every span `score_heldout` asks the model, in order: each record's whole span and the
    holes the grammar's partial parse leaves in it (asked under the generator's subjects)."""
    from datasets import load_from_disk

    ev = load_from_disk(str(data))["eval"]
    subjects = _generator_subjects(data)
    out = []
    for i in _pick(len(ev), k):
        span = ev[i]["span"]
        out += [span, *(u.text for u in parse_prereq(span, subjects).unresolved)]
    return out


def stolaf_spans(items: list[Labelled], subjects: Mapping[str, str] | None) -> list[str]:
    """Every span `score_stolaf` asks the model: the holes of each scored string, and the whole
    string where the grammar cannot type it."""
    out = []
    for it in items:
        if it.pool:
            continue
        holes = [u.text for u in parse_prereq(it.text, subjects).unresolved]
        out += holes + ([it.text] if holes else [])
    return out


def prefill(
    fb: Cached,
    data: Path,
    k: int | None,
    items: list[Labelled],
    subjects: Mapping[str, str] | None,
    workers: int,
) -> None:
    """Answer every span `score_heldout(fb, data, k)` and `score_stolaf(fb, items, subjects)`
    will ask, `workers` at a time, each under the subjects table it will be asked under; the
    scoring then reads the cache."""
    own = fb.model.subjects
    try:
        fb.model.subjects = _generator_subjects(data)
        fb.fill(heldout_spans(data, k), workers)
        fb.model.subjects = subjects
        fb.fill(stolaf_spans(items, subjects), workers)
    finally:
        fb.model.subjects = own


def _eval_families(data: Path) -> str:
    """Which families the export drew its eval split from (`export clauses --eval-families`)."""
    return (load_manifest(data) or {}).get("generator", {}).get("eval_families", "held_out")


def _score_rows(
    fb: Cached, ev: Any, rows: list[int], subjects: dict[str, str], progress: Any
) -> dict[str, Any]:
    by_kind: dict[str, Counter] = {}
    misses = []
    for i in progress(rows) if progress else rows:
        r = ev[i]
        gold = json.loads(r["target"])["prerequisite"]
        alone = fb(r["span"])
        system = type_prose(r["span"], fb, subjects)[0].prerequisite
        c = by_kind.setdefault(r["kind"], Counter())
        c["n"] += 1
        c["model_alone"] += alone is not None and _ok(_node(alone), gold)
        c["grammar_plus_model"] += _ok(system, gold)
        c["grammar_only"] += _ok(parse_prereq(r["span"], subjects).ast, gold)
        if not (alone is not None and _ok(_node(alone), gold)) and len(misses) < 25:
            misses.append({"span": r["span"], "gold": gold, "model": _dump(alone),
                           "system": system and system.model_dump(mode="json")})  # fmt: skip
    total = sum(by_kind.values(), Counter())
    return {"n": total["n"], **_rates(total), "by_kind": {k: _rates(v) | {"n": v["n"]} for k, v
            in sorted(by_kind.items())}, "misses": misses}  # fmt: skip


def _generator_subjects(data: Path) -> dict[str, str]:
    from data_export.clauses.generator import subject_names

    return {name: code for code, name in subject_names().items()}


def _rates(c: Counter) -> dict[str, Any]:
    n = c["n"] or 1
    return {
        k: {"correct": c[k], "share": round(c[k] / n, 4)}
        for k in ("model_alone", "grammar_plus_model", "grammar_only")
    }


def _dump(clause: Any) -> Any:
    if clause is None:
        return "unresolved"
    node = clause.prerequisite
    return None if node is None else node.model_dump(mode="json", exclude_none=True)


def score_stolaf(
    fb: Cached | None,
    items: list[Labelled],
    subjects: Mapping[str, str] | None,
    progress: Callable[[list], Any] | None = None,
) -> dict[str, Any]:
    """Per split: grammar only, grammar + model, and on the strings the grammar cannot type, the
    model alone on the whole string; the pool is counted, not scored."""
    out: dict[str, Any] = {}
    for split in sorted({i.split for i in items}):
        part = [i for i in items if i.split == split]
        scored = [i for i in part if not i.pool]
        c: Counter = Counter()
        misses = []
        for it in progress(scored) if progress else scored:
            parsed = parse_prereq(it.text, subjects)
            hard = bool(parsed.unresolved)
            c["n"] += 1
            c["hard"] += hard
            g = _ok(parsed.ast, it.ast)
            c["grammar_only"] += g
            c["hard_grammar_only"] += g and hard
            if fb is None:
                continue
            system = type_prose(it.text, fb, subjects)[0].prerequisite
            m = _ok(system, it.ast)
            c["grammar_plus_model"] += m
            if hard:
                c["hard_grammar_plus_model"] += m
                alone = fb(it.text)
                c["hard_model_alone"] += alone is not None and _ok(_node(alone), it.ast)
            if not m:
                misses.append({"text": it.text, "gold": it.ast,
                               "system": system and system.model_dump(mode="json")})  # fmt: skip
        n, h = c["n"] or 1, c["hard"] or 1
        res: dict[str, Any] = {
            "labelled": c["n"],
            "pool": len(part) - len(scored),
            "grammar_only": _share(c["grammar_only"], n),
            "hard": c["hard"],
            "hard_grammar_only": _share(c["hard_grammar_only"], h),
        }
        if fb is not None:
            res |= {
                "grammar_plus_model": _share(c["grammar_plus_model"], n),
                "hard_grammar_plus_model": _share(c["hard_grammar_plus_model"], h),
                "hard_model_alone": _share(c["hard_model_alone"], h),
                "misses": misses,
            }
        out[split] = res
    return out


def _share(k: int, n: int) -> dict[str, Any]:
    return {"correct": k, "share": round(k / n, 4)}


def pct(x: dict[str, Any]) -> str:
    return f"{100 * x['share']:.1f}% ({x['correct']})"


def markdown(doc: dict[str, Any]) -> str:
    h, s = doc["heldout"], doc["stolaf"]
    card = doc.get("card", {})
    md = [
        "# Clause-to-AST fallback model",
        "",
        f"Model `{doc['model']}` (layout `{doc['layout']}`, base `{card.get('base', '?')}`, "
        f"{card.get('training', {}).get('global_step', '?')} optimizer steps); backend "
        f"{doc['backend']}. Equivalence is logical equivalence over atoms.",
        "",
        f"## Held-out generator families ({h['n']} records, never trained on)"
        if h.get("families", "held_out") == "held_out"
        else f"## Training generator families ({h['n']} fresh records of phrasings trained on)",
        "",
        "| records | n | model alone | grammar + model | grammar only |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    rows = [("all", h), *h["by_kind"].items()]
    for name, x in rows:
        md.append(
            f"| {name} | {x['n']} | {pct(x['model_alone'])} | {pct(x['grammar_plus_model'])} "
            f"| {pct(x['grammar_only'])} |"
        )
    md += [
        "",
        "## Real St. Olaf strings (hand-labelled, never trained on)",
        "",
        "| split | labelled (pool) | grammar only | grammar + model | grammar cannot type | "
        "... grammar only | ... grammar + model | ... model alone |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for split, x in s.items():
        md.append(
            f"| {split} | {x['labelled']} ({x['pool']}) | {pct(x['grammar_only'])} | "
            f"{pct(x['grammar_plus_model'])} | {x['hard']} | {pct(x['hard_grammar_only'])} | "
            f"{pct(x['hard_grammar_plus_model'])} | {pct(x['hard_model_alone'])} |"
        )
    c = doc["calls"]
    md += [
        "",
        f"{c['spans']} distinct spans sent to the model, {c['calls']} calls (a retry is a "
        f"call); median {c['median_seconds_per_span']} s per span on this backend "
        f"({c.get('spans_per_minute')} spans per minute, one at a time), "
        f"{c['completion_tokens_per_span']} completion tokens per span.",
    ]
    misses = s.get("dev", {}).get("misses", [])
    if misses:
        md += ["", "### St. Olaf dev strings the system gets wrong", ""]
        md += [f"- `{m['text']}`" for m in misses]
    return "\n".join(md) + "\n"
