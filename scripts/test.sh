#!/usr/bin/env bash
# One command for a fresh machine: set up (with the small 0.5B local model and
# the browser) and run every test, the slow real-model and browser tests included.
# Arguments go to pytest (e.g. -m "not slow" -x).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: install Debian's chromium package (sudo apt-get install chromium)" >&2
    exit 1
  fi
fi
GEOAGENT_LOCAL_MODEL="${GEOAGENT_LOCAL_MODEL:-0.5b}" GEOAGENT_EXTRAS=test GEOAGENT_SKIP_INDEX=1 \
  bash scripts/setup.sh
exec "$ROOT/.venv/bin/python" -m pytest "$@"
