#!/usr/bin/env bash
# One command for a fresh machine: set everything up, then start JupyterLab with
# GeoAgent on its embedded defaults (local model, local index). Extra arguments
# go to `jupyter lab` (e.g. --port 8890 --no-browser).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
cd "${GEOAGENT_NOTEBOOK_DIR:-$ROOT/examples}"
# Containers and cloud notebooks run as root, which Jupyter refuses without --allow-root.
ROOT_FLAG=()
if [ "$(id -u)" = "0" ]; then
  ROOT_FLAG=(--allow-root)
  echo "start.sh: running as root (a container?), so JupyterLab starts with --allow-root"
fi
exec "$ROOT/.venv/bin/jupyter" lab "${ROOT_FLAG[@]}" "$@"
