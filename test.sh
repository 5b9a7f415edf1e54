#!/usr/bin/env bash
# Run the whole test suite (sets up .venv on first use). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
py=$(scripts/bootstrap.sh)
exec "$py" -m pytest "$@"
