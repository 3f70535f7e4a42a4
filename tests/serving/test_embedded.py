"""Embedded backend: schema-valid output from a random model, in-process and over HTTP."""

from __future__ import annotations

import base64
import io

import pytest

from serving.batch import chat_many
from serving.client import ChatClient
from serving.protocol import build_messages

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def backend(tiny_text, lora_adapters):
    from serving.embedded import EmbeddedBackend

    return EmbeddedBackend(
        tiny_text, adapter_dir=lora_adapters["student"], base_name="tiny", adapter_name="student"
    )


def test_schema_valid_for_base_and_adapter(backend, messages, small_schema, check_small):
    texts = {}
    for name in ("tiny", "student"):
        res = backend.chat(messages, small_schema, max_tokens=64, model=name)
        assert res.finish_reason == "stop", res
        check_small(res.text)
        assert res.usage.prompt_tokens > 10 and res.usage.completion_tokens > 0
        texts[name] = res.text
    # Sampling changes the answer, but the grammar still holds.
    for seed in range(3):
        res = backend.chat(messages, small_schema, temperature=1.0, max_tokens=64, seed=seed)
        check_small(res.text)


def test_real_action_ast_schema(backend, messages):
    from contracts import action_ast_decoding_schema
    from contracts.actions import ActionAST

    schema = action_ast_decoding_schema()
    res = backend.chat(messages, schema, max_tokens=400)
    # A random model may ramble inside an unbounded number until the budget ends ("length");
    # every answer that ends is a valid Action AST.
    if res.finish_reason == "stop":
        ActionAST.model_validate_json(res.text)
    else:
        assert res.usage.completion_tokens == 400


def test_unconstrained_and_unknown_model(backend, messages):
    res = backend.chat(messages, None, max_tokens=8)
    assert res.usage.completion_tokens <= 8
    with pytest.raises(KeyError):
        backend.chat(messages, None, max_tokens=4, model="nope")


def test_http_front_with_client(backend, messages, small_schema, check_small):
    from serving.embedded_api.server import EmbeddedServer

    with EmbeddedServer(backend) as srv, ChatClient(srv.base_url, "student", vision=False) as cl:
        assert cl.list_models() == ["tiny", "student"]
        res = cl.chat(messages, json_schema=small_schema, max_tokens=64)
        check_small(res.text)
        assert res.usage.completion_tokens > 0 and res.latency_s > 0
        items = chat_many(
            cl, [messages] * 4, small_schema, concurrency=2, max_tokens=64, progress=False
        )
        assert [it.index for it in items] == [0, 1, 2, 3]
        assert all(it.result is not None for it in items)


def test_vl_messages_to_processor_inputs():
    """OpenAI image_url parts become template placeholders and decoded PIL images."""
    from PIL import Image

    from serving.embedded import _vl_messages

    buf = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buf, format="PNG")
    msgs = build_messages("click ok", system="sys", screenshot_png=buf.getvalue(), vision=True)
    out, images = _vl_messages(msgs)
    assert out[1]["content"][0] == {"type": "image"} and len(images) == 1
    assert images[0].size == (8, 8)
    assert base64.b64decode(msgs[1]["content"][0]["image_url"]["url"].split(",")[1])


def test_vl_student_with_screenshot(tmp_path_factory, small_schema, check_small):
    """A tiny Qwen3-VL answers a screenshot + text prompt with schema-valid JSON on CPU."""
    from PIL import Image

    from base_models.tiny import build_vl
    from serving.embedded import EmbeddedBackend

    model_dir = build_vl(tmp_path_factory.mktemp("tiny") / "vl")
    backend = EmbeddedBackend(model_dir)
    assert backend.vision
    buf = io.BytesIO()
    Image.new("RGB", (200, 120), "white").save(buf, format="PNG")
    msgs = build_messages("click submit", system="sys", screenshot_png=buf.getvalue(), vision=True)
    with_image = backend.chat(msgs, small_schema, max_tokens=64)
    check_small(with_image.text)
    text_only = backend.chat(build_messages("click submit", system="sys"), None, max_tokens=1)
    # The image's placeholder tokens are in the prompt (Qwen3-VL: merged 32x32 patches).
    assert with_image.usage.prompt_tokens > text_only.usage.prompt_tokens + 10


def test_placement_takes_the_gpu_in_bf16_only_where_torch_sees_one(tiny_text, monkeypatch):
    import torch

    from serving.embedded import EmbeddedBackend, placement

    assert placement("bfloat16") == ("cpu", "bfloat16", "no GPU")
    auto = EmbeddedBackend(tiny_text, device="auto")
    assert auto.device == "cpu" and auto.model.device.type == "cpu"
    reply = auto.chat(build_messages("click submit", system="sys"), None, max_tokens=2)
    assert reply.usage.completion_tokens >= 1
    # What a GPU node answers (no GPU here to run on): the GPU, in bfloat16, named.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=0: "NVIDIA H200")
    assert placement() == ("cuda", "bfloat16", "GPU NVIDIA H200")


def test_generate_streams_what_chat_returns(backend, messages):
    from serving.structured_outputs import StructuredOutput

    whole = backend.chat(messages, None, max_tokens=12)
    gen = backend.generate(messages, temperature=0, max_tokens=12, model="student")
    assert "".join(gen) == whole.text and gen.finish_reason == whole.finish_reason
    picked = backend.generate(messages, StructuredOutput.choice(["yes", "no"]), temperature=0)
    assert picked.result() in ("yes", "no") and picked.finish_reason == "stop"


def test_a_closed_stream_stops_generating(backend, messages):
    gen = backend.generate(messages, temperature=0, max_tokens=1000)
    next(iter(gen))
    gen.close()
    gen._thread.join(timeout=30)
    assert not gen._thread.is_alive() and gen.completion_tokens < 1000
    assert gen.finish_reason == "abort"
    # The lock is free again: the next request is answered.
    assert backend.chat(messages, None, max_tokens=2).usage.completion_tokens >= 1


def test_refusals_before_any_token(backend, messages):
    from serving.embedded import ModelNotServed, RequestRefused
    from serving.structured_outputs import StructuredOutput

    with pytest.raises(ModelNotServed):
        backend.generate(messages, model="nope")
    with pytest.raises(RequestRefused, match="context"):
        backend.generate(messages, max_tokens=10**9)
    with pytest.raises(RequestRefused) as err:
        backend.generate(messages, StructuredOutput(kind="regex", spec="(("))
    assert err.value.param == "structured_outputs"
