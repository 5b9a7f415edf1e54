#!/usr/bin/env bash
# Run the whole test suite (sets up .venv with the test extras on first use). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
py=$(scripts/bootstrap.sh test)
exec "$py" -m pytest "$@"
