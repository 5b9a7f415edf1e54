# MicroPython freeze manifest: build the firmware into a MicroPython image for the Pico, so its
# bytecode runs from flash and leaves the RAM to the game (see README, "Freezing the firmware").
#   cd micropython/ports/rp2
#   make BOARD=RPI_PICO FROZEN_MANIFEST=<this repository>/manifest.py
# Relative paths are this file's folder. Frozen: the firmware package, the simulator excepted
# (firmware/sim never runs on a board). Not frozen: boot.py and firmware/main.py, which the board
# runs by name from its flash (/boot.py, /main.py), and hardware/board.json, which it reads there.
# tests/test_micropython_packaging.py checks that this freezes exactly the modules deploy sends.

metadata(description="Smart nardy board firmware", license="MIT")

include("$(PORT_DIR)/boards/manifest.py")   # the port's own frozen modules (asyncio, neopixel, ...)

module("firmware/__init__.py")
module("firmware/app.py")
package("firmware/rules")
package("firmware/drivers")
package("firmware/board")
package("firmware/engine")
