#!/usr/bin/env bash
# Run the firmware: on the virtual board in your browser, or against a real board if one is attached.
# Installs only what playing needs; --micropython also installs the MicroPython unix port.
set -euo pipefail
cd "$(dirname "$0")"
sets=(play)
for a in "$@"; do [ "$a" = "--micropython" ] && sets+=(micropython); done
py=$(scripts/bootstrap.sh "${sets[@]}")
exec "$py" -m host_tools play "$@"
