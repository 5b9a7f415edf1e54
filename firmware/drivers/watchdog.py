"""The hardware watchdog: started by the first feed, so a REPL session that never feeds is not reset."""

# RP2040: machine.WDT timeout is at most 8388 ms, and once started it cannot be stopped.


class Watchdog:
    timeout_ms = 8000

    def __init__(self, wdt_class, timeout_ms=None):
        if timeout_ms is not None:
            self.timeout_ms = timeout_ms
        self.wdt_class = wdt_class
        self.wdt = None

    def feed(self):
        wdt = self.wdt
        if wdt is None:
            wdt = self.wdt = self.wdt_class(timeout=self.timeout_ms)
        wdt.feed()
