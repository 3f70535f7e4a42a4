"""Recipe, accelerate and DeepSpeed config checks, no GPU: WebRider Appendix E, Tables 37-39."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from tests.training.trainutil import REPO, run_cmd, run_env
from training.sft_config import (
    BatchMismatchError,
    RecipeError,
    build_sft_config,
    check_world_batch,
    load_recipe,
    resolve_path,
)

pytestmark = pytest.mark.train

RECIPES = sorted((REPO / "training/recipes").glob("*.yaml"))
DS_JSONS = sorted((REPO / "training/deepspeed").glob("*.json"))
PAPER_RECIPES = {
    # name: (model, lr, gpus, micro, accum, global, zero, lora targets)
    "middle-qwen3vl-8b": ("Qwen/Qwen3-VL-8B-Instruct", 8e-5, 4, 1, 8, 32, 2, 7),
    "middle-qwen3vl-32b": ("Qwen/Qwen3-VL-32B-Instruct", 3e-5, 4, 1, 8, 32, 3, 7),
    "middle-qwen3vl-30b-a3b": ("Qwen/Qwen3-VL-30B-A3B-Instruct", 2e-5, 4, 2, 4, 32, 3, 4),
    "middle-gemma4-31b": ("google/gemma-4-31B-it", 3e-5, 4, 1, 8, 32, 3, 7),
    "middle-gemma4-31b-recovery": ("google/gemma-4-31B-it", 1e-5, 3, 1, 11, 33, 3, 7),
}


def test_all_expected_recipes_exist():
    names = {p.stem for p in RECIPES}
    assert set(PAPER_RECIPES) | {"clause-to-ast", "tiny-middle-vl", "tiny-clause"} <= names


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: p.stem)
def test_recipe_validates_through_sftconfig(path: Path, tmp_path):
    recipe = load_recipe(path)
    assert recipe.name == path.stem
    cfg = build_sft_config(recipe, tmp_path, validate_only=True)
    assert cfg.assistant_only_loss is (recipe.loss_on == "assistant") and cfg.packing is False
    # All-token loss is the base-stage setting of a random student; adapters train on answers.
    assert recipe.loss_on == "assistant" or recipe.lora is None
    assert cfg.per_device_train_batch_size == recipe.batch.micro_batch
    assert cfg.gradient_accumulation_steps == recipe.batch.grad_accum
    assert cfg.max_length == recipe.data.max_length
    assert cfg.bf16 is (recipe.precision == "bf16")
    assert "tensorboard" in cfg.report_to
    check_world_batch(recipe, recipe.batch.gpus)  # the recipe's own launch shape passes


@pytest.mark.parametrize("name", sorted(PAPER_RECIPES))
def test_paper_recipes_match_tables_37_to_39(name: str):
    model, lr, gpus, micro, accum, glob, zero, n_targets = PAPER_RECIPES[name]
    r = load_recipe(REPO / f"training/recipes/{name}.yaml")
    assert r.model.name_or_path == model and r.model.kind == "vl"
    assert r.trainer["learning_rate"] == pytest.approx(lr)
    assert (r.batch.gpus, r.batch.micro_batch, r.batch.grad_accum, r.batch.global_batch) == (
        gpus,
        micro,
        accum,
        glob,
    )
    assert r.distributed.zero_stage == zero
    assert r.loss_on == "assistant"
    # Table 37 common settings
    assert (r.lora.r, r.lora.alpha, r.lora.dropout, r.lora.bias) == (16, 32, 0.05, "none")
    assert len(r.lora.target_modules) == n_targets and r.lora.module_scope == "language_model"
    assert r.precision == "bf16" and r.model.dtype == "bfloat16"
    assert r.data.max_length == 6144 and r.data.preprocessing_workers == 1
    t = r.trainer
    assert t["optim"] == "adamw_torch_fused"
    assert (t["adam_beta1"], t["adam_beta2"], t["adam_epsilon"]) == (0.9, 0.95, 1e-8)
    assert (t["weight_decay"], t["max_grad_norm"], t["seed"]) == (0.1, 1.0, 42)
    assert (t["lr_scheduler_type"], t["warmup_steps"], t["num_train_epochs"]) == ("cosine", 0, 1)
    assert t["activation_checkpointing"] is True
    assert (t["eval_steps"], t["save_total_limit"], t["load_best_model_at_end"]) == (250, 3, False)
    assert t["logging_steps"] == 5 and t["dataloader_drop_last"] is False


@pytest.mark.parametrize(
    "path",
    [p for p in RECIPES if load_recipe(p).distributed.zero_stage],
    ids=lambda p: p.stem,
)
def test_accelerate_config_matches_recipe(path: Path):
    """A DeepSpeed recipe's accelerate YAML has its GPU count and a DeepSpeed JSON of its ZeRO
    stage (the CPU recipes run one plain process)."""
    r = load_recipe(path)
    acc = yaml.safe_load(resolve_path(r.distributed.accelerate_config).read_text())
    assert acc["num_processes"] == r.batch.gpus
    assert acc["distributed_type"] == "DEEPSPEED"
    assert "mixed_precision" not in acc  # accelerate rejects it beside a deepspeed_config_file
    ds = json.loads((REPO / acc["deepspeed_config"]["deepspeed_config_file"]).read_text())
    assert ds["zero_optimization"]["stage"] == r.distributed.zero_stage


def test_accelerate_yamls_name_existing_ds_json():
    for path in (REPO / "training/accelerate").glob("*.yaml"):
        acc = yaml.safe_load(path.read_text())
        assert "mixed_precision" not in acc, path
        if acc["distributed_type"] == "DEEPSPEED":
            assert (REPO / acc["deepspeed_config"]["deepspeed_config_file"]).is_file(), path


@pytest.mark.parametrize("path", DS_JSONS, ids=lambda p: p.stem)
def test_deepspeed_json_validates_with_deepspeed(path: Path, tmp_path):
    pytest.importorskip("deepspeed")
    from deepspeed.runtime.config import DeepSpeedConfig
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    raw = json.loads(path.read_text())
    # Batch values are "auto" so they can only come from a recipe: no duplicated number can drift.
    for key in (
        "train_micro_batch_size_per_gpu",
        "gradient_accumulation_steps",
        "gradient_clipping",
    ):
        assert raw[key] == "auto", key
    recipe = load_recipe(REPO / "training/recipes/middle-qwen3vl-8b.yaml")
    args = build_sft_config(recipe, tmp_path, validate_only=True)
    hf = HfTrainerDeepSpeedConfig(str(path))
    hf.trainer_config_process(args)
    hf.trainer_config_finalize(
        args, SimpleNamespace(config=SimpleNamespace(hidden_size=4096)), num_training_steps=785
    )
    flat = json.dumps(hf.config)
    assert '"auto"' not in flat
    cfg = DeepSpeedConfig(hf.config)  # rejects unknown keys and batch mismatches
    assert cfg.zero_optimization_stage == raw["zero_optimization"]["stage"]
    assert cfg.train_micro_batch_size_per_gpu == 1 and cfg.gradient_accumulation_steps == 8
    assert cfg.gradient_clipping == 1.0


def test_deepspeed_parser_rejects_unknown_key():
    """Guards the validation above: the parser really is strict."""
    pytest.importorskip("deepspeed")
    from deepspeed.runtime.config import DeepSpeedConfig

    cfg = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1}
    cfg["zero_optimization"] = {"stage": 2, "no_such_option": 1}
    with pytest.raises(Exception, match="no_such_option"):
        DeepSpeedConfig(cfg)


def test_batch_check_refuses_mismatch():
    r = load_recipe(REPO / "training/recipes/middle-qwen3vl-8b.yaml")
    with pytest.raises(
        BatchMismatchError, match=r"2 process\(es\) x micro batch 1 x grad .* 8 = 16"
    ):
        check_world_batch(r, 2)
    check_world_batch(r, 4)


def test_launcher_refuses_mismatch_before_loading_a_model(tmp_path):
    """WORLD_SIZE=2 against a 4-GPU recipe: exit 2, a clear message, and no model is read."""
    env = run_env() | {"WORLD_SIZE": "2"}
    cmd = [
        sys.executable,
        "-m",
        "training.sft",
        "--recipe",
        "training/recipes/middle-qwen3vl-8b.yaml",
    ]
    cmd += ["--model", str(tmp_path / "does-not-exist"), "--output-dir", str(tmp_path / "out")]
    proc = run_cmd(cmd, timeout=120, env=env)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "batch mismatch" in proc.stderr and "global batch is 32" in proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("world", "extra"),
    [(4, []), (8, ["--grad-accum", "4"])],  # 4 GPUs (Table 39); 8 GPUs or 2 nodes x 4, same 32
)
def test_launcher_check_mode_accepts_matching_world(world, extra):
    env = run_env() | {"WORLD_SIZE": str(world)}
    cmd = [sys.executable, "-m", "training.sft", "--check", *extra]
    cmd += ["--recipe", "training/recipes/middle-qwen3vl-8b.yaml"]
    proc = run_cmd(cmd, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"is valid for {world} process(es)" in proc.stdout


def test_micro_batch_override_keeps_global_batch(tmp_path):
    """--micro-batch 1 on the tiny recipe (global 2) needs 2 processes; 1 process is refused."""
    env = run_env() | {"WORLD_SIZE": "1"}
    cmd = [sys.executable, "-m", "training.sft", "--check", "--micro-batch", "1"]
    cmd += ["--recipe", "training/recipes/tiny-middle-vl.yaml"]
    proc = run_cmd(cmd, timeout=120, env=env)
    assert proc.returncode == 2 and "global batch is 2" in proc.stderr


def _write(tmp_path: Path, mutate) -> Path:
    data = yaml.safe_load((REPO / "training/recipes/middle-qwen3vl-8b.yaml").read_text())
    mutate(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_recipe_error_names_file_and_field(tmp_path):
    path = _write(tmp_path, lambda d: d["lora"].update(r="sixteen"))
    with pytest.raises(RecipeError) as e:
        load_recipe(path)
    assert str(path) in str(e.value) and "lora.r" in str(e.value)


def test_recipe_rejects_unknown_and_reserved_keys(tmp_path):
    with pytest.raises(RecipeError, match=r"lora\.rank"):
        load_recipe(_write(tmp_path, lambda d: d["lora"].update(rank=8)))
    with pytest.raises(RecipeError, match=r"batch\.micro_batch"):
        load_recipe(_write(tmp_path, lambda d: d["trainer"].update(per_device_train_batch_size=2)))
    typo = load_recipe(_write(tmp_path, lambda d: d["trainer"].update(learning_rat=1e-4)))
    with pytest.raises(RecipeError, match=r"bad.yaml:\n  field 'trainer.learning_rat': not a TRL"):
        build_sft_config(typo, tmp_path, validate_only=True)


def test_recipe_rejects_inconsistent_batch(tmp_path):
    with pytest.raises(RecipeError, match="global_batch is 32"):
        load_recipe(_write(tmp_path, lambda d: d["batch"].update(grad_accum=4)))


def test_wandb_only_when_configured(tmp_path, monkeypatch):
    # set, then removed: monkeypatch then also removes what report_to sets below, which would
    # otherwise turn W&B on in every later training subprocess of this session
    monkeypatch.setenv("WANDB_PROJECT", "")
    monkeypatch.delenv("WANDB_PROJECT")
    r = load_recipe(REPO / "training/recipes/tiny-clause.yaml")
    assert build_sft_config(r, tmp_path, validate_only=True).report_to == ["tensorboard"]
    r.wandb_project = "pathwise-test"
    assert build_sft_config(r, tmp_path, validate_only=True).report_to == ["tensorboard", "wandb"]
    assert os.environ.get("WANDB_PROJECT") == "pathwise-test"


def test_training_package_stands_apart():
    """training/ reads datasets from disk and knows no agent: importing it pulls in neither."""
    code = (
        "import sys, training, training.sft, training.sft_config, training.data, "
        "training.checkpoints, base_models.tiny, training.tiny_data\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('agent_runtime', 'data_export')]\n"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = run_cmd([sys.executable, "-c", code], timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]


def test_loss_on_switches_assistant_only_loss(tmp_path):
    data = yaml.safe_load((REPO / "training/recipes/demo-student-smollm2.yaml").read_text())
    for value, expected in (("assistant", True), ("all", False)):
        path = tmp_path / f"{value}.yaml"
        path.write_text(yaml.safe_dump({**data, "loss_on": value}))
        cfg = build_sft_config(load_recipe(path), tmp_path / value, validate_only=True)
        assert cfg.assistant_only_loss is expected
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({**data, "loss_on": "prompt"}))
    with pytest.raises(RecipeError, match="loss_on"):
        load_recipe(bad)


def test_train_launch_passes_process_and_machine_options_through(tmp_path):
    from training.launch import TrainLaunch, launch_command

    recipe = REPO / "training/recipes/middle-qwen3vl-8b.yaml"
    cmd = launch_command(TrainLaunch(recipe=recipe, dataset=tmp_path / "d", max_steps=3))
    # The recipe's own config, unless the user names another; accelerate options before `-m`.
    assert cmd[cmd.index("--config_file") + 1] == str(REPO / "training/accelerate/zero2-4gpu.yaml")
    assert cmd[cmd.index("-m", 3) + 1] == "training.sft" and "--num_processes" not in cmd
    # One machine and no port: a free one, so two launches on one box never share 29500.
    assert cmd[cmd.index("--main_process_port") + 1] == "0"
    multi = REPO / "training/accelerate/zero2-multinode.yaml"
    assert "--main_process_port" not in launch_command(
        TrainLaunch(recipe=recipe, accelerate_config=multi, num_processes=8)
    )  # the config's 29500, the same on every node
    other = REPO / "training/accelerate/cpu-zero2-2proc.yaml"
    cmd = launch_command(
        TrainLaunch(recipe=recipe, accelerate_config=other, num_processes=16, num_machines=2,
                    machine_rank=1, main_process_ip="10.0.0.1", main_process_port=29500)
    )  # fmt: skip
    head = cmd[: cmd.index("-m", 3)]
    assert head[head.index("--config_file") + 1] == str(other)
    for flag, value in (("--num_processes", "16"), ("--num_machines", "2"),
                        ("--machine_rank", "1"), ("--main_process_ip", "10.0.0.1"),
                        ("--main_process_port", "29500")):  # fmt: skip
        assert head[head.index(flag) + 1] == value
    with pytest.raises(RecipeError, match=r"no-such\.yaml"):
        launch_command(TrainLaunch(recipe=recipe, accelerate_config=tmp_path / "no-such.yaml"))


def test_train_launch_paths_are_the_callers(tmp_path, monkeypatch):
    """The launched processes run from the repository root: every path the caller gave is
    made absolute against the caller's directory first; a hub id and "auto" are no paths."""
    from training.launch import TrainLaunch, launch_command

    (tmp_path / "base").mkdir()
    (tmp_path / "ckpt").mkdir()
    monkeypatch.chdir(tmp_path)
    spec = TrainLaunch(recipe=Path("my.yaml"), dataset=Path("data"), out=Path("runs/../a"),
                       accelerate_config=Path("acc.yaml"), model="base")  # fmt: skip
    assert (spec.recipe, spec.dataset, spec.out, spec.accelerate_config) == (
        tmp_path / "my.yaml",
        tmp_path / "data",
        tmp_path / "a",
        tmp_path / "acc.yaml",
    )
    assert spec.model == str(tmp_path / "base") and spec.resume == "auto"
    assert TrainLaunch(recipe=REPO / "r.yaml", resume="ckpt").resume == str(tmp_path / "ckpt")
    hub = TrainLaunch(recipe=REPO / "training/recipes/middle-qwen3vl-8b.yaml",
                      model="Qwen/Qwen3-VL-8B-Instruct", dataset=Path("d"))  # fmt: skip
    cmd = launch_command(hub)
    assert cmd[cmd.index("--model") + 1] == "Qwen/Qwen3-VL-8B-Instruct"
    assert cmd[cmd.index("--dataset") + 1] == str(tmp_path / "d")


@pytest.mark.slow
def test_8b_recipe_launch_checks_out_under_its_own_four_process_config():
    """What `pathwise demo --recipe middle-qwen3vl-8b` and the README's 4-GPU command launch:
    `accelerate launch` with the recipe's zero2-4gpu.yaml, four processes, each of which checks
    the recipe, its batch (4 x 1 x 8 = 32) and TRL's config, and loads nothing."""
    pathwise = str(Path(sys.executable).parent / "pathwise")
    cmd = [pathwise, "train", "--recipe", "training/recipes/middle-qwen3vl-8b.yaml", "--check"]
    proc = run_cmd(cmd, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    launch = next(line for line in proc.stderr.splitlines() if line.startswith("$ "))
    assert "--config_file " + str(REPO / "training/accelerate/zero2-4gpu.yaml") in launch
    assert launch.endswith("--check")
    assert proc.stdout.count("is valid for 4 process(es)") == 4
    assert "check passed" in proc.stdout


def test_multinode_configs_use_the_standard_launcher():
    """Two nodes x 4 GPUs = 8 processes in all; torch.distributed.run on each node."""
    for stage in (2, 3):
        cfg = yaml.safe_load((REPO / f"training/accelerate/zero{stage}-multinode.yaml").read_text())
        assert (cfg["num_machines"], cfg["num_processes"]) == (2, 8)
        ds = cfg["deepspeed_config"]
        assert ds["deepspeed_multinode_launcher"] == "standard"  # no ssh, no hostfile
        assert ds["deepspeed_config_file"] == f"training/deepspeed/zero{stage}.json"
