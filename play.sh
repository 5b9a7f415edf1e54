#!/usr/bin/env bash
# Run the firmware: on the virtual board in the browser, or against a real board if one is attached.
set -euo pipefail
cd "$(dirname "$0")"
py=$(scripts/bootstrap.sh)
exec "$py" -m host_tools play "$@"
