#!/usr/bin/env bash
# Debian packages the test suite uses: chromium (browser tests), gnubg (the reference engine's
# own CLI), valgrind (instruction counts for RP2040 estimates), KiCad's symbol and footprint
# libraries (the schematic netlist SKiDL builds), Mosquitto (the tournament hall's MQTT broker,
# with mosquitto_passwd; its service is not started: the hall starts its own). Skips what is
# already there.
set -euo pipefail
need=()
command -v chromium >/dev/null || need+=(chromium)
[ -x /usr/games/gnubg ] || command -v gnubg >/dev/null || need+=(gnubg)
command -v valgrind >/dev/null || need+=(valgrind)
[ -f /usr/share/kicad/symbols/74xx.kicad_sym ] || need+=(kicad-symbols)
[ -d /usr/share/kicad/footprints/Package_SO.pretty ] || need+=(kicad-footprints)
[ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null || need+=(mosquitto)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}" >&2
fi
