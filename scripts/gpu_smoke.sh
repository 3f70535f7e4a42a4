#!/usr/bin/env bash
# GPU smoke check for training/: the tiny VL recipe for 20 steps in bf16 under DeepSpeed ZeRO-2
# through `accelerate launch` on one GPU (a few minutes, most of it DeepSpeed's first-use op build).
# Writes benchmarks/results/gpu_smoke.json (pass/fail, losses, steps/s, GPU name).
#   scripts/gpu_smoke.sh            # needs .venv from scripts/setup.sh (torch, [train], deepspeed)
set -euo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
ACCELERATE=.venv/bin/accelerate
WORK="${PATHWISE_SMOKE_DIR:-runs/gpu_smoke}"
RESULT=benchmarks/results/gpu_smoke.json
STEPS="${PATHWISE_SMOKE_STEPS:-20}"

"$PY" - <<'PY'
import sys, torch
if not torch.cuda.is_available():
    sys.exit("gpu_smoke: no CUDA device visible; this check only means something on a GPU")
print("gpu:", torch.cuda.get_device_name(0), "bf16:", torch.cuda.is_bf16_supported())
PY
"$PY" -c "import deepspeed" || { echo "gpu_smoke: deepspeed missing (scripts/setup.sh installs it)"; exit 1; }

rm -rf "$WORK" && mkdir -p "$WORK" benchmarks/results
"$PY" -m base_models.tiny --kind vl --out "$WORK/model"
"$PY" -m training.tiny_data --kind vl --out "$WORK/data" --n-train 64 --n-eval 4

start=$(date +%s)
set +e
"$ACCELERATE" launch --config_file training/accelerate/zero2-1gpu.yaml training/sft.py \
  --recipe training/recipes/tiny-middle-vl.yaml --model "$WORK/model" --dataset "$WORK/data" \
  --output-dir "$WORK/run" --max-steps "$STEPS" --precision bf16 --resume never 2>&1 | tee "$WORK/log.txt"
rc=${PIPESTATUS[0]}
set -e
wall=$(( $(date +%s) - start ))

"$PY" - "$WORK" "$rc" "$wall" "$STEPS" "$RESULT" <<'PY'
import json, sys, time
from pathlib import Path
import torch
work, rc, wall, steps, result = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
out = {"check": "tiny-middle-vl, bf16, DeepSpeed ZeRO-2, accelerate, 1 GPU", "exit_code": rc,
       "wall_s": wall, "gpu": torch.cuda.get_device_name(0), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
summary = work / "run" / "run_summary.json"
if summary.is_file():
    s = json.loads(summary.read_text())
    losses = s["train_losses"]
    out |= {"steps": s["global_step"], "distributed_type": s["distributed_type"], "zero_stage": s["zero_stage"],
            "precision": s["precision"], "device": s["device"],
            "steps_per_s": s["train_metrics"].get("train_steps_per_second"),
            "loss_first": losses[0], "loss_last": losses[-1]}
    checks = {
        "exit_ok": rc == 0,
        "all_steps": s["global_step"] == steps,
        "deepspeed_zero2": (s["distributed_type"], s["zero_stage"]) == ("DEEPSPEED", 2),
        "bf16": s["precision"] == "bf16",
        "on_cuda": s["device"].startswith("cuda"),
        "loss_falls": sum(losses[-3:]) / 3 < sum(losses[:3]) / 3,
        "adapter_saved": (work / "run" / "adapter_model.safetensors").is_file(),
    }
else:
    checks = {"exit_ok": rc == 0, "run_summary_written": False}
out["checks"] = checks
out["passed"] = all(checks.values())
Path(result).write_text(json.dumps(out, indent=2) + "\n")
print(json.dumps(out, indent=2))
sys.exit(0 if out["passed"] else 1)
PY
