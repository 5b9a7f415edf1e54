#!/usr/bin/env bash
# Debian packages the test suite uses: chromium (browser tests), gnubg (the reference engine's
# own CLI), valgrind (instruction counts for RP2040 estimates). Skips what is already there.
set -euo pipefail
need=()
command -v chromium >/dev/null || need+=(chromium)
[ -x /usr/games/gnubg ] || command -v gnubg >/dev/null || need+=(gnubg)
command -v valgrind >/dev/null || need+=(valgrind)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}" >&2
fi
