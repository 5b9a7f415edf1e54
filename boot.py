"""The board's boot file: MENU held at power-up gives safe mode, where main.py does not run
(unless the board is locked for tournament play: then the firmware always starts)."""

import micropython
micropython.kbd_intr(-1)  # first of all: a Ctrl-C while the board starts is a byte, never a prompt

# The rp2 port runs main.py only when boot.py finished without an exception (ports/rp2/main.c:
# `ret != 0`). Safe mode therefore ends boot.py with SafeMode: the firmware is not started and
# the REPL stays free, so mpremote can always replace a main.py that crashes or hangs the board.
# Electrical: MENU shorts its GPIO to GND against the internal pull-up (pressed reads 0).

# The port runs main.py with Ctrl-C enabled again: main.py closes it again as its first act, and
# the firmware opens it (Runner.guard) only once it knows the board is not locked.

import machine  # noqa: E402  (after closing the REPL, on purpose)

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


def locked(names=("data/lock", "data/lock.b")):
    """The tournament lock is on flash (firmware/board/identity.py keeps it in two copies): a
    copy that exists and does not say it is off counts as locked, as the firmware counts it.
    (Relative names: the port starts in "/", and the boot-window tests start in a flash folder.)"""
    for name in names:
        try:
            with open(name, "rb") as f:
                if b'"locked": false' not in f.read():
                    return True
        except OSError:
            pass
    return False


try:
    SAFE_MODE = menu_held() and not locked()    # a locked board's REPL needs the director
except Exception:          # a pin that cannot be read must never stop the board from booting
    SAFE_MODE = False

if SAFE_MODE:
    raise SafeMode("MENU held at power-up: main.py skipped, the REPL is yours")
