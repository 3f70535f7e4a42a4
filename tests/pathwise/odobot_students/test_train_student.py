"""A short real training run of OdoBot's student: its recipe on the real SmolLM2-135M-Instruct
base through `pathwise train`'s launcher, on records exported the way the study exports them;
the loss goes down and the merged student is written for serving."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from data_export.odobot.export import export_student
from odobot.pipeline import OdoConfig, heldout_instances, training_instances
from pathwise.odobot_students.pipeline import REPO, StudentsSpec, train_student
from tests.helpers.odobot_runs import write_runs

pytestmark = [pytest.mark.train, pytest.mark.slow]


def test_a_few_steps_on_the_real_base_lower_the_loss(smollm2: Path, tmp_path: Path) -> None:
    cfg = OdoConfig()
    world, insts = training_instances(cfg)[0]
    write_runs(tmp_path / "runs", world, [i for i in insts if i.template_id == "ann_new"])
    _, heldout = heldout_instances(cfg)
    manifest = export_student("odobot", tmp_path / "runs" / "odobot", tmp_path / "data", heldout)
    assert manifest["by_kind"] == {"option": 1, "value": 2}
    # The shipped recipe, logging every step and with a batch that fits the three records.
    recipe = yaml.safe_load((REPO / StudentsSpec().recipes["odobot"]).read_text())
    recipe["batch"] |= {"micro_batch": 3, "global_batch": 3}
    recipe["trainer"] |= {"logging_steps": 1, "save_steps": 100}
    path = tmp_path / "odobot-student-smollm2.yaml"
    path.write_text(yaml.safe_dump(recipe))
    spec = StudentsSpec(recipes={"odobot": str(path)}, max_steps=3)
    got = train_student("odobot", spec, smollm2, tmp_path / "data" / "dataset", tmp_path / "st")
    losses = got["train_losses"]
    assert got["global_step"] == 3 and len(losses) == 3
    assert losses[-1] < losses[0], losses
    merged = Path(got["model"])
    assert (merged / "config.json").is_file()
    assert json.loads((merged / "provenance.json").read_text())["merged"]["adapter_sha256"]
