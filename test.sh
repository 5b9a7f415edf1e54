#!/usr/bin/env bash
# Run the tests (sets up .venv with the test extras on first use, and says in one line what it set up).
#   ./test.sh            the fast suite: every test not marked soak, on 2 workers (pytest-xdist)
#   ./test.sh --soak     the long randomized runs (the tests marked soak), on 2 workers
#   ./test.sh --all      both
#   ./test.sh ARGS...    pytest with these arguments (the fast tests unless ARGS choose with -m;
#                        tests named by path run in one process)
# --soak and --all take pytest's arguments after them too (./test.sh --soak -q). NARDY_WORKERS
# sets the number of workers (default 2; 0 runs in one process).
set -euo pipefail
cd "$(dirname "$0")"
mode=""
args=()
for a in "$@"; do
  case "$a" in
    --soak) mode=soak ;;
    --all) mode=all ;;
    *) args+=("$a") ;;
  esac
done
py=$(scripts/bootstrap.sh test)
marker=()
case "$mode" in
  soak) marker=(-m soak) ;;
  all) ;;
  *) [[ " ${args[*]-} " == *" -m "* ]] || marker=(-m "not soak") ;;
esac
named=""                                # tests named by path or node id run in one process
for a in "${args[@]}"; do [[ -e "${a%%::*}" ]] && named=1; done
workers=()
if [ -z "$named" ] && [[ " ${args[*]-} " != *" -n "* ]]; then
  workers=(-n "${NARDY_WORKERS:-2}")
fi
case "$mode" in
  soak) what="the soak tests" ;;
  all) what="every test" ;;
  *) if [ -z "$named" ]; then what="the fast suite (--soak: the long runs)"; else what="pytest ${args[*]}"; fi ;;
esac
sets=$(cd .venv && ls .installed-*.sha 2>/dev/null | sed 's/^.installed-//; s/.sha$//' | tr '\n' ' ')
echo "test.sh: .venv ready ($("$py" -V), requirements ${sets% }); running $what${workers[*]:+ on ${NARDY_WORKERS:-2} workers}" >&2
exec "$py" -m pytest "${marker[@]}" "${workers[@]}" "${args[@]}"
