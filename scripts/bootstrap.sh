#!/usr/bin/env bash
# Make (once) and refresh the project's own virtual environment in .venv; print its python.
# Debian packages (valgrind for RP2040 estimates, chromium for browser tests, gnubg) are
# installed by scripts/system_deps.sh, which needs root.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
venv="$top/.venv"
stamp="$venv/.requirements.sha"
want=$(sha256sum "$top/requirements.txt" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$top/requirements.txt" >&2
  echo "$want" > "$stamp"
fi
echo "$venv/bin/python"
