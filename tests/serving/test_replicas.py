"""Replicas: each server on its own cores or GPU, one comma-joined endpoint, round-robin."""

from __future__ import annotations

from pathlib import Path

import pytest

from serving.client import ChatClient, split_endpoints
from serving.replicas import replica_configs, replica_log, split_cores
from serving.vllm_args import ServeConfig, build_env


def test_cores_split_into_equal_contiguous_shares():
    assert split_cores([0, 1], 2) == ["0", "1"]
    assert split_cores(list(range(8)), 2) == ["0-3", "4-7"]
    # A container's cpuset need not start at 0 nor be contiguous.
    assert split_cores([2, 3, 6, 7], 2) == ["2-3", "6-7"]
    assert split_cores([1, 3, 5], 1) == ["1,3,5"]
    with pytest.raises(ValueError, match="3 replicas need 3 cores; this process may use 2"):
        split_cores([0, 1], 3)


def test_replica_configs_bind_cores_or_gpus_and_ports():
    cfg = ServeConfig(base="x", port=8010)
    assert replica_configs(cfg, 1) == [cfg]  # one replica: unchanged, no binding
    cpu = replica_configs(cfg, 2, gpus=0, cores=[0, 1])
    assert [(c.port, c.cpu_bind, c.cuda_devices) for c in cpu] == [
        (8010, "0", None),
        (8011, "1", None),
    ]
    assert build_env(cpu[1], base_env={})["VLLM_CPU_OMP_THREADS_BIND"] == "1"
    gpu = replica_configs(cfg, 2, gpus=4)
    assert [c.cuda_devices for c in gpu] == ["0", "1"]
    assert build_env(gpu[0], base_env={})["CUDA_VISIBLE_DEVICES"] == "0"
    with pytest.raises(ValueError, match="nvidia-smi lists 1"):
        replica_configs(cfg, 2, gpus=1)
    free = replica_configs(ServeConfig(base="x", port=0), 2, gpus=0, cores=[0, 1])
    assert free[0].port != free[1].port and all(c.port > 0 for c in free)


def test_bad_bind_is_refused_with_the_field():
    with pytest.raises(ValueError, match="cpu_bind"):
        ServeConfig(base="x", cpu_bind="auto; rm")


def test_replica_logs():
    log = Path("runs/serve/vllm.log")
    assert replica_log(log, 0, 1) == log
    assert replica_log(log, 1, 2) == Path("runs/serve/vllm-1.log")


def test_endpoint_lists_are_checked():
    assert split_endpoints("http://a:1/v1/, http://b:2/v1") == ["http://a:1/v1", "http://b:2/v1"]
    with pytest.raises(ValueError, match="no endpoint URL"):
        split_endpoints(" , ")
    with pytest.raises(ValueError, match="'b:2/v1' in"):
        split_endpoints("http://a:1/v1,b:2/v1")


@pytest.mark.train
def test_client_round_robin_and_failover(tiny_text, lora_adapters, messages, small_schema):
    """Two real in-process servers of one tiny model: four requests, two each; then one replica
    down and every request still answered by the other (a retry goes to the next replica)."""
    from serving.embedded import EmbeddedBackend
    from serving.embedded_http import EmbeddedServer
    from serving.vllm_args import free_port

    backend = EmbeddedBackend(
        tiny_text, adapter_dir=lora_adapters["student"], base_name="tiny", adapter_name="student"
    )
    bare = EmbeddedBackend(tiny_text, base_name="tiny")  # a replica started without the adapter
    with EmbeddedServer(backend) as a, EmbeddedServer(backend) as b, EmbeddedServer(bare) as c:
        with ChatClient(f"{a.base_url},{b.base_url}", "student", vision=False) as cl:
            assert cl.list_models() == ["tiny", "student"]
            for _ in range(4):
                cl.chat(messages, json_schema=small_schema, max_tokens=16)
            assert (a.completions, b.completions) == (2, 2)
        with ChatClient(f"{a.base_url},{c.base_url}", "student", vision=False) as cl:
            assert cl.list_models() == ["tiny"]  # what every replica serves
        dead = f"http://127.0.0.1:{free_port()}/v1"
        with ChatClient(f"{dead},{a.base_url}", "student", vision=False, timeout=5) as cl:
            for _ in range(2):
                assert cl.chat(messages, json_schema=small_schema, max_tokens=16).text
        assert a.completions == 4


def test_serve_cli_refuses_more_replicas_than_devices():
    from typer.testing import CliRunner

    from pathwise.cli import app

    res = CliRunner().invoke(app, ["serve", "--base", "x", "--replicas", "1000"])
    assert res.exit_code == 2
    assert "1000 replicas need 1000" in res.output
    res = CliRunner().invoke(app, ["serve", "--base", "x", "--replicas", "2", "--embedded"])
    assert res.exit_code == 2 and "--embedded runs one" in res.output


def test_a_replica_that_dies_at_start_stops_them_all(tmp_path, monkeypatch):
    """This interpreter has no vllm, so each replica exits at once: the group raises with the log
    tail and leaves no process behind."""
    import sys

    monkeypatch.setattr("serving.replicas.gpu_count", lambda: 0)  # any machine: two CPU shares
    monkeypatch.setattr("serving.replicas.usable_cores", lambda: [0, 1])

    from serving.launch import ServeError
    from serving.replicas import ServerReplicas

    group = ServerReplicas(
        ServeConfig(base="x", port=0),
        2,
        log_path=tmp_path / "vllm.log",
        startup_timeout=60,
        python=sys.executable,
    )
    with pytest.raises(ServeError, match="exited with code 1 during startup"), group:
        pass
    assert all(s.proc is None for s in group.servers)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vllm-0.log", "vllm-1.log"]
