"""The host link over USB serial (pyserial): find attached boards, exchange protocol lines with one."""

import threading

import serial
import serial.tools.list_ports

# USB vendor ids of RP2040 boards running MicroPython (Raspberry Pi; MicroPython's own id).
BOARD_VIDS = (0x2E8A, 0xF055)
BAUD = 115200


def find_board_ports():
    """Device paths of the attached serial ports that look like an RP2040 running MicroPython."""
    found = []
    for port in sorted(serial.tools.list_ports.comports()):
        if port.vid in BOARD_VIDS:
            found.append(port.device)
    return found


class SerialLink:
    """Protocol lines to and from a board on a serial port.

    ``start(on_line)`` opens the port and calls ``on_line(text)`` (without the newline) from a
    reader thread for every line the board prints; ``send(text)`` writes one command line;
    ``close()`` stops. ``on_close`` (optional) is called once when the port goes away.
    """

    kind = "board"

    def __init__(self, port, baud=BAUD, opener=serial.serial_for_url):
        self.port = port
        self.baud = baud
        self._opener = opener
        self._serial = None
        self._thread = None
        self._closing = threading.Event()
        self._write_lock = threading.Lock()
        self.on_close = None

    def describe(self):
        return "board on " + self.port

    def start(self, on_line):
        self._serial = self._opener(self.port, baudrate=self.baud, timeout=0.2)
        self._thread = threading.Thread(target=self._read_loop, args=(on_line,),
                                        name="serial-link", daemon=True)
        self._thread.start()
        return self

    def send(self, text):
        data = (text.rstrip("\r\n") + "\n").encode("utf-8")
        with self._write_lock:
            self._serial.write(data)
            self._serial.flush()

    def close(self):
        self._closing.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._serial is not None:
            self._serial.close()

    def _read_loop(self, on_line):
        pending = b""
        try:
            while not self._closing.is_set():
                chunk = self._serial.read(self._serial.in_waiting or 1)
                if not chunk:
                    continue
                pending += chunk
                while b"\n" in pending:
                    raw, pending = pending.split(b"\n", 1)
                    text = raw.decode("utf-8", "replace").rstrip("\r")
                    if text:
                        on_line(text)
        except (OSError, serial.SerialException):
            pass
        finally:
            if self.on_close is not None and not self._closing.is_set():
                self.on_close()


def exchange(ser, line, timeout=10.0):
    """Send one command line on an open port and collect the board's answer objects up to its
    ``ok`` or ``err`` (lines that are not JSON, such as a REPL's, are skipped); [] on a timeout."""
    import json
    import time
    ser.reset_input_buffer()
    ser.write((line.rstrip("\r\n") + "\n").encode("utf-8"))
    ser.flush()
    out = []
    pending = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        chunk = ser.read(ser.in_waiting or 1)
        pending += chunk
        while b"\n" in pending:
            raw, pending = pending.split(b"\n", 1)
            try:
                obj = json.loads(raw.decode("utf-8", "replace"))
            except ValueError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
                if obj.get("t") in ("ok", "err"):
                    return out
    return []
