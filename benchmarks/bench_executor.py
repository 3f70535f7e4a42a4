"""Executor overhead on MiniWoB++: ours (labels, events, fallbacks) vs a bare Playwright loop.

Both loops run the same scripted solutions on the same tasks and seeds in the same browser,
interleaved episode by episode, so machine noise hits both alike. A "step" is one
observation plus one action: ours = Executor.observe (set-of-mark labels, optionally the
labeled screenshot) + Executor.execute; bare = the idiomatic Playwright call on a native
selector (page.click / page.fill), optionally preceded by page.screenshot(path=...).
A "reset" is MiniWoBTask.setup vs the same start calls issued by hand.

    python benchmarks/bench_executor.py [--seeds 20]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_runtime.browser.executor import Executor
from agent_runtime.browser.launch import BrowserSession
from contracts.actions import ActionAST, ClickAction, TypeAction
from contracts.observation import Observation
from envs.miniwob.task import DEFAULT_EPISODE_MAX_MS, MiniWoBServer, MiniWoBTask

RESULTS = Path(__file__).parent / "results"
TASKS = ("click-button", "enter-text", "login-user")

_START = """([seed, ms]) => { Math.seedrandom(seed); core.EPISODE_MAX_TIME = ms;
  core.startEpisodeReal(); }"""


def quoted(goal: str) -> list[str]:
    return re.findall(r'"([^"]*)"', goal)


# Each plan: list of steps; a step is (ours: obs -> ActionAST, bare: page -> None).
def plan(task: str, goal: str) -> list[tuple[Callable[[Observation], ActionAST], Any]]:
    q = quoted(goal)

    def click_where(pred: Callable[[Any], bool]) -> Callable[[Observation], ActionAST]:
        return lambda o: ActionAST(
            action=ClickAction(target=next(e.label for e in o.labels if pred(e)))
        )

    def type_where(pred: Callable[[Any], bool], text: str) -> Callable[[Observation], ActionAST]:
        return lambda o: ActionAST(
            action=TypeAction(target=next(e.label for e in o.labels if pred(e)), text=text)
        )

    if task == "click-button":
        return [
            (
                click_where(lambda e: e.role == "button" and e.text == q[0]),
                lambda p: p.click(f'button:text-is("{q[0]}")', timeout=2000),
            )
        ]
    if task == "enter-text":
        return [
            (type_where(lambda e: e.role == "textbox", q[0]), lambda p: p.fill("#tt", q[0])),
            (click_where(lambda e: e.text == "Submit"), lambda p: p.click("#subbtn")),
        ]
    if task == "login-user":
        return [
            (type_where(lambda e: e.text == "Username", q[0]), lambda p: p.fill("#username", q[0])),
            (type_where(lambda e: e.text == "Password", q[1]), lambda p: p.fill("#password", q[1])),
            (click_where(lambda e: e.text == "Login"), lambda p: p.click("#subbtn")),
        ]
    raise ValueError(task)


def stats(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]
    return {"n": len(xs), "median_ms": round(statistics.median(xs), 2), "p95_ms": round(p95, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    args = ap.parse_args()
    t: dict[str, list[float]] = {}

    def add(key: str, ms: float) -> None:
        t.setdefault(key, []).append(ms)

    fails = {"ours": 0, "bare": 0}
    tmp = Path(tempfile.mkdtemp(prefix="bench-exec-"))
    with MiniWoBServer() as server, BrowserSession() as session:
        page = session.page
        ex = Executor(page)
        for task_name in TASKS:
            url = f"{server.url}/miniwob/{task_name}.html"
            reuse = MiniWoBTask(task_name, base_url=server.url, reuse_page=True)
            reload_ = MiniWoBTask(task_name, base_url=server.url, reuse_page=False)
            reuse.setup(page, 0)  # warm the page cache and JIT for both loops
            for seed in range(args.seeds):
                for shot in (False, True):
                    # --- ours: reset (reuse and reload), then the plan through the executor
                    t0 = time.perf_counter()
                    reload_.setup(page, seed)
                    add("reset_reload_ours", _ms(t0))
                    t0 = time.perf_counter()
                    goal = reuse.setup(page, seed).goal
                    add("reset_reuse_ours", _ms(t0))
                    steps = plan(task_name, goal)
                    for i, (ours, _) in enumerate(steps):
                        t0 = time.perf_counter()
                        path = tmp / f"{task_name}-{seed}-{i}.png" if shot else None
                        obs = ex.observe(path)
                        ex.execute(ours(obs))
                        if i == len(steps) - 1:
                            ex.flush()  # the last screenshot is on disk inside the timing
                        add(f"step_{'shot' if shot else 'noshot'}_ours", _ms(t0))
                    fails["ours"] += reuse.validate(page).raw_reward != 1.0
                    ex.events.drain()
                    # --- bare: the same resets and actions, by hand
                    t0 = time.perf_counter()
                    page.goto(url, wait_until="load")
                    page.wait_for_function("() => core.cover_div !== null")
                    page.evaluate(_START, [seed, DEFAULT_EPISODE_MAX_MS])
                    page.wait_for_function("() => WOB_TASK_READY")
                    page.evaluate("() => core.getUtterance()")
                    add("reset_reload_bare", _ms(t0))
                    t0 = time.perf_counter()
                    page.evaluate(_START, [seed, DEFAULT_EPISODE_MAX_MS])
                    page.wait_for_function("() => WOB_TASK_READY")
                    page.evaluate("() => core.getUtterance()")
                    add("reset_reuse_bare", _ms(t0))
                    for i, (_, bare) in enumerate(steps):
                        t0 = time.perf_counter()
                        if shot:
                            page.screenshot(path=tmp / f"bare-{task_name}-{seed}-{i}.png")
                        bare(page)
                        add(f"step_{'shot' if shot else 'noshot'}_bare", _ms(t0))
                    fails["bare"] += page.evaluate("() => WOB_RAW_REWARD_GLOBAL") != 1
        ex.close()

    res = {k: stats(v) for k, v in sorted(t.items())}
    ratios = {}
    for key in ("step_noshot", "step_shot", "reset_reuse", "reset_reload"):
        ours, bare = res[f"{key}_ours"], res[f"{key}_bare"]
        ratios[key] = round(ours["median_ms"] / bare["median_ms"], 3)
    out = {
        "tasks": list(TASKS),
        "seeds": args.seeds,
        "timings": res,
        "ratio_ours_over_bare": ratios,
        "episodes_not_solved": fails,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "executor.json").write_text(json.dumps(out, indent=2) + "\n")
    lines = [
        "# Executor vs bare Playwright on MiniWoB++",
        "",
        f"Tasks {', '.join(TASKS)}; seeds 0-{args.seeds - 1}; interleaved in one browser.",
        "",
        "| measure | ours median | ours p95 | bare median | bare p95 | ours/bare |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key, r in ratios.items():
        o, b = res[f"{key}_ours"], res[f"{key}_bare"]
        lines.append(
            f"| {key} (ms) | {o['median_ms']} | {o['p95_ms']} | {b['median_ms']} "
            f"| {b['p95_ms']} | {r} |"
        )
    lines += [
        "",
        "Bare clicks are Playwright's actionability-checked `page.click` (it polls animation",
        "frames until the element is stable, ~35 ms); ours checks the hit point in the same",
        "round trip as the lookup and clicks with the mouse, which is why ours can be faster",
        "without a screenshot. With a screenshot, ours also draws the labels (Pillow, on a",
        "worker thread; the last step of each episode waits for the file).",
    ]
    lines += ["", f"Episodes not solved (raw reward != 1): {fails}", ""]
    (RESULTS / "executor.md").write_text("\n".join(lines))
    print("\n".join(lines))


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


if __name__ == "__main__":
    main()
