"""Waiting in tests for something another thread or process does: poll until it holds."""

import time


def wait_until(predicate, timeout=10.0, what="condition"):
    """``predicate()``'s first true value, polled every 20 ms; AssertionError naming ``what``
    after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out waiting for " + what)
