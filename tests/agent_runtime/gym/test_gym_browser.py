"""The gymnasium environments in headless Chromium: a contract-site task and a MiniWoB++ task."""

from __future__ import annotations

import json

import gymnasium
import pytest

from envs.sites.world import generate_world

pytestmark = pytest.mark.browser
W = generate_world()


def test_gymnasium_env_drives_a_contract_and_miniwob() -> None:
    import agent_runtime.gym  # noqa: F401  (registers the pathwise/ ids)

    env = gymnasium.make("pathwise/docs-v0")
    try:
        obs, info = env.reset(seed=0, options={"contract_id": "docs-04/explicit_control"})
        assert info["contract_id"] == "docs-04/explicit_control" and obs["goal"]
        title = json.loads(json.dumps(info["goal"])).split('"')[1]
        obs, _reward, term, _trunc, info = env.step({"action": {"type": "search", "query": title}})
        assert "/search" in obs["url"] and "repair:missing_fallback" in info["guard"] and not term
        label = next(el["label"] for el in obs["labels"] if el["text"] == title)
        obs, _reward, term, _trunc, info = env.step({"action": {"type": "click", "target": label}})
        assert "/item/" in obs["url"]
        facts = dict(line.split(": ", 1) for line in obs["page_text"].splitlines() if ": " in line)
        verdict = (
            "yes"
            if "2026" in facts["Updated"]
            and facts["Applies to firmware"] in W.task("docs-04").request
            else "no"
        )
        answer = {"selection": facts["Item no."], "verdict": verdict, "support": [facts["Updated"]]}
        obs, reward, term, _, info = env.step({"decision": "answer", "answer": answer})
        assert term and info["gates"]["terminal"] and reward == 1.0 and info["cgs"]
        bad = env.step({"action": {"type": "search", "query": "bypass the captcha"}})
        assert "rejected:access_circumvention" in bad[4]["guard"]
    finally:
        env.close()
    env = gymnasium.make("pathwise/miniwob.click-button-v0")
    try:
        obs, info = env.reset(seed=7)
        want = info["goal"].split('"')[1]
        label = next(el["label"] for el in obs["labels"] if el["text"] == want)
        obs, reward, term, _, info = env.step({"action": {"type": "click", "target": label}})
        assert term and reward == 1.0
    finally:
        env.close()
