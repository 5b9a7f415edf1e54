"""The board's boot file: MENU held at power-up gives safe mode, where main.py does not run."""

# The rp2 port runs main.py only when boot.py finished without an exception (ports/rp2/main.c:
# `ret != 0`). Safe mode therefore ends boot.py with SafeMode: the firmware is not started and
# the REPL stays free, so mpremote can always replace a main.py that crashes or hangs the board.
# Electrical: MENU shorts its GPIO to GND against the internal pull-up (pressed reads 0).

import machine

BTN_MENU_GPIO = 20        # hardware/board.json pins.btn_menu (tests/test_hw_board.py checks it)
SAFE_MODE = False


class SafeMode(Exception):
    pass


def menu_held(samples=10):
    """MENU reads pressed on every one of ``samples`` reads 1 ms apart (no bounce, no noise)."""
    import time
    sleep_ms = getattr(time, "sleep_ms", None) or (lambda ms: time.sleep(ms / 1000))
    pin = machine.Pin(BTN_MENU_GPIO, machine.Pin.IN, machine.Pin.PULL_UP)
    for _ in range(samples):
        if pin.value():
            return False
        sleep_ms(1)
    return True


try:
    SAFE_MODE = menu_held()
except Exception:          # a pin that cannot be read must never stop the board from booting
    SAFE_MODE = False

if SAFE_MODE:
    raise SafeMode("MENU held at power-up: main.py skipped, the REPL is yours")
