"""Tiny LoRA SFT runs on CPU through training/sft.py: WebRider Appendix E, Tables 37-39."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.training.trainutil import (
    CLAUSE_RECIPE,
    REPO,
    VL_RECIPE,
    ZERO2_2PROC,
    ok,
    pathwise_train,
    printed_command,
    run_env,
    sft_accelerate,
    sft_python,
    summary,
)

pytestmark = [pytest.mark.train, pytest.mark.slow]


def assert_loss_falls(losses: list[float], steps: int) -> None:
    assert len(losses) == steps
    # Mean of the last three below the mean of the first three by a margin a flat run cannot reach.
    head, tail = sum(losses[:3]) / 3, sum(losses[-3:]) / 3
    assert tail < head - 0.3, losses
    assert losses[-1] < losses[0], losses


def assert_overlength_deleted(out: Path) -> None:
    counts = json.loads((out / "overlength.json").read_text())
    assert counts["max_length"] == 256
    assert counts["train"]["total"] == 33 and counts["train"]["deleted_overlength"] == 1
    assert counts["train"]["kept"] == 32 and counts["train"]["longest_kept"] <= 256
    assert counts["train"]["longest_seen"] > 256
    assert counts["eval"]["deleted_overlength"] == 0


def test_tiny_vl_sft_python(vl_run: Path, tiny_vl: Path):
    s = summary(vl_run)
    assert s["global_step"] == 12 and s["num_processes"] == 1
    assert_loss_falls(s["train_losses"], 12)
    assert_overlength_deleted(vl_run)
    assert (vl_run / "adapter_model.safetensors").is_file()
    assert (vl_run / "checkpoint-12" / "pathwise_checkpoint.json").is_file()
    assert list((vl_run / "runs").rglob("events.out.tfevents.*")), "no TensorBoard events"
    # Vision tower and aligner/deepstack mergers stay frozen: every adapter tensor is in the LM.
    from safetensors import safe_open

    with safe_open(str(vl_run / "adapter_model.safetensors"), "pt") as f:
        keys = list(f.keys())
    assert keys and all("language_model" in k for k in keys), keys[:5]
    assert not any("visual" in k for k in keys)


def test_tiny_vl_adapter_reloads_and_generates(vl_run: Path, tiny_vl: Path):
    import torch
    from peft import PeftModel
    from PIL import Image
    from safetensors.torch import load_file
    from transformers import AutoModelForImageTextToText, AutoProcessor

    from training.tiny_data import MIDDLE_SYSTEM

    torch.set_num_threads(1)
    processor = AutoProcessor.from_pretrained(tiny_vl)
    base = AutoModelForImageTextToText.from_pretrained(tiny_vl)
    model = PeftModel.from_pretrained(base, vl_run).eval()
    saved = load_file(str(vl_run / "adapter_model.safetensors"))
    b_keys = [k for k in saved if "lora_B" in k]
    assert b_keys and any(saved[k].abs().sum() > 0 for k in b_keys)  # trained, not the zero init
    messages = [
        {"role": "system", "content": [{"type": "text", "text": MIDDLE_SYSTEM}]},
        {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "click Submit"}]},
    ]
    text = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    inputs = processor(
        text=[text], images=[Image.new("RGB", (128, 96), "white")], return_tensors="pt"
    )
    out = model.generate(**inputs, max_new_tokens=8, do_sample=False)
    assert out.shape[1] > inputs["input_ids"].shape[1]


def _assert_matches_single(out: Path, vl_run: Path, stage: int) -> None:
    """Same losses and adapter as the one-process run: only the reduction order differs.

    Tolerances: 1e-3 absolute per logged loss, 1e-4 per adapter weight (measured about 1e-6 and
    3e-6). A ZeRO-3 adapter is gathered on save and read back here in a fresh process.
    """
    from safetensors.torch import load_file

    s = summary(out)
    assert (s["distributed_type"], s["num_processes"], s["zero_stage"]) == ("DEEPSPEED", 2, stage)
    assert (s["micro_batch"], s["grad_accum"], s["global_batch"]) == (1, 1, 2)
    ref = summary(vl_run)["train_losses"]
    assert len(s["train_losses"]) == len(ref) == 12
    diffs = [abs(a - b) for a, b in zip(s["train_losses"], ref, strict=True)]
    assert max(diffs) < 1e-3, diffs
    mine = load_file(str(out / "adapter_model.safetensors"))
    single = load_file(str(vl_run / "adapter_model.safetensors"))
    assert set(mine) == set(single)
    assert all(mine[k].shape == single[k].shape for k in single)  # not ZeRO-3 shards
    assert max((mine[k] - single[k]).abs().max().item() for k in single) < 1e-4


def test_pathwise_train_zero2_two_processes_matches_single(zero2_run, vl_run):
    """`pathwise train --accelerate-config cpu-zero2-2proc.yaml` prints the accelerate launch it
    runs, then trains as one process does (micro 1 on each of two ranks vs micro 2 on one)."""
    out, stderr = zero2_run
    cmd = printed_command(stderr)
    assert cmd[1:3] == ["-m", "accelerate.commands.launch"]
    assert cmd[cmd.index("--config_file") + 1].endswith("training/accelerate/cpu-zero2-2proc.yaml")
    assert cmd[cmd.index("-m", 3) + 1] == "training.sft"
    _assert_matches_single(out, vl_run, 2)


def test_tiny_vl_zero3_two_processes_matches_single(vl_run, tiny_vl, vl_data, tmp_path):
    pytest.importorskip("deepspeed")
    out = tmp_path / "z3"
    ok(sft_accelerate("training/accelerate/cpu-zero3-2proc.yaml", VL_RECIPE, tiny_vl, vl_data,
                      out, "--micro-batch", "1"))  # fmt: skip
    _assert_matches_single(out, vl_run, 3)


def test_two_nodes_on_loopback_match_one_node(zero2_run, tiny_vl, vl_data, tmp_path):
    """Two `pathwise train` launches, machine rank 0 and 1 of a two-node world (one CPU process
    each, DeepSpeed ZeRO-2, the standard launcher, rank 0 on 127.0.0.1), as a GPU cluster runs
    them on two nodes: the same losses as one launch with two processes, to 1e-5."""
    from serving.vllm_args import free_port

    steps = 6
    out = tmp_path / "two-nodes"  # one folder, as on a cluster's shared filesystem
    node = pathwise_train(VL_RECIPE, tiny_vl, vl_data, out, "--accelerate-config", ZERO2_2PROC)
    node += ["--num-processes", "2", "--num-machines", "2", "--main-process-ip", "127.0.0.1",
             "--main-process-port", str(free_port()), "--micro-batch", "1",
             "--max-steps", str(steps)]  # fmt: skip
    procs = [
        subprocess.Popen(
            [*node, "--machine-rank", str(rank)],
            cwd=REPO,
            env=run_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in (0, 1)
    ]
    results = [p.communicate(timeout=600) for p in procs]
    for p, (stdout, stderr) in zip(procs, results, strict=True):
        assert p.returncode == 0, f"{stdout[-2000:]}\n{stderr[-4000:]}"
    for rank, (_, stderr) in enumerate(results):
        cmd = printed_command(stderr)
        assert cmd[cmd.index("--machine_rank") + 1] == str(rank)
        assert cmd[cmd.index("--num_machines") + 1] == "2"
    s = summary(out)
    assert (s["world_size"], s["num_processes"], s["zero_stage"]) == (2, 2, 2)
    assert s["global_step"] == steps
    one_node = summary(zero2_run[0])["train_losses"][:steps]
    diffs = [abs(a - b) for a, b in zip(s["train_losses"], one_node, strict=True)]
    assert len(diffs) == steps and max(diffs) < 1e-5, diffs


@pytest.fixture(scope="module")
def clause_run(tiny_text, text_data, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "clause"
    ok(sft_python(CLAUSE_RECIPE, tiny_text, text_data, out))
    return out


def test_tiny_clause_sft(clause_run: Path, tiny_text: Path):
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    s = summary(clause_run)
    assert_loss_falls(s["train_losses"], 12)
    assert_overlength_deleted(clause_run)
    torch.set_num_threads(1)
    tok = AutoTokenizer.from_pretrained(tiny_text)
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_text), clause_run)
    ids = tok.apply_chat_template(
        [{"role": "user", "content": "Span: MATH 101 and CS 150"}],
        add_generation_prompt=True,
        return_tensors="pt",
        return_dict=True,
    )
    out = model.eval().generate(**ids, max_new_tokens=8, do_sample=False)
    assert out.shape[1] > ids["input_ids"].shape[1]


def test_resume_full_then_model_only(clause_run: Path, tiny_text, text_data, tmp_path):
    """Same world size: full resume continues the steps. Changed: adapter only, fresh schedule."""
    import shutil

    out = tmp_path / "resume"
    shutil.copytree(clause_run, out)
    ok(sft_python(CLAUSE_RECIPE, tiny_text, text_data, out, "--max-steps", "14"))
    s = summary(out)
    assert s["resume"]["mode"] == "full" and s["resume"]["checkpoint"].endswith("checkpoint-12")
    assert s["global_step"] == 14 and len(s["train_losses"]) == 14  # log history carried over

    meta = out / "checkpoint-14" / "pathwise_checkpoint.json"
    meta.write_text(json.dumps({"world_size": 4, "micro_batch": 1, "grad_accum": 1}))
    ok(sft_python(CLAUSE_RECIPE, tiny_text, text_data, out, "--max-steps", "3"))
    s = summary(out)
    assert (
        s["resume"]["mode"] == "model_only"
        and "world size changed (4 -> 1)" in s["resume"]["reason"]
    )
    assert s["global_step"] == 3  # optimizer and schedule restarted
    # Restored, not re-initialised: the first loss is far below the fresh run's first loss.
    assert s["train_losses"][0] < summary(clause_run)["train_losses"][0] - 0.3


def test_resuming_a_finished_run_trains_no_extra_step(
    clause_run: Path, tiny_text, text_data, tmp_path
):
    """A rerun of a finished run (a pipeline's stage rerun) keeps its steps and its adapter."""
    import shutil

    out = tmp_path / "again"
    shutil.copytree(clause_run, out)
    before = (out / "adapter_model.safetensors").read_bytes()
    ok(sft_python(CLAUSE_RECIPE, tiny_text, text_data, out))
    s = summary(out)
    assert s["global_step"] == summary(clause_run)["global_step"] == 12
    assert len(s["train_losses"]) == 12
    assert (out / "adapter_model.safetensors").read_bytes() == before
