"""Per-slot deferred debounce of a bitmap: press and release timed separately, no allocation per call."""

from firmware.drivers.ticks import ticks_diff


class SlotDebouncer:
    """Debounce a bytearray bitmap of raw levels (slot s = byte s >> 3, bit s & 7).

    A stable bit flips only after the raw level has differed from it for ``press_ms`` (towards
    active) or ``release_ms`` (towards inactive) without a break; a bounce back restarts the wait.
    ``active_low`` says the raw level 0 means active (pulled-up switches). ``stable`` keeps raw
    levels; ``active(i)`` and ``changed`` (bits flipped by the last update) are what callers read.
    The clock is read once per call: ``update(raw, now_ms)``.
    """

    press_ms = 20
    release_ms = 40

    def __init__(self, nbytes, press_ms=None, release_ms=None, active_low=False):
        if press_ms is not None:
            self.press_ms = press_ms
        if release_ms is not None:
            self.release_ms = release_ms
        self.polarity = 0xFF if active_low else 0
        self.stable = bytearray(b"\xff" * nbytes) if active_low else bytearray(nbytes)
        self.changed = bytearray(nbytes)
        self._pending = bytearray(nbytes)
        self._elapsed = bytearray(nbytes * 8)
        self._npending = 0
        self._dirty_changed = False
        self._last = None

    def active(self, i):
        return ((self.stable[i >> 3] ^ self.polarity) >> (i & 7)) & 1

    def update(self, raw, now):
        """Feed one scan; True when some stable bit flipped (see ``changed``)."""
        last = self._last
        self._last = now
        if self._dirty_changed:
            self._clear_changed()
        if self._npending == 0 and raw == self.stable:
            return False          # the common case: nothing moved, nothing timing
        dt = 0 if last is None else ticks_diff(now, last)
        return self._step(raw, 0 if dt < 0 else 255 if dt > 255 else dt)

    def _clear_changed(self):
        changed = self.changed
        for b in range(len(changed)):
            changed[b] = 0
        self._dirty_changed = False

    def _step(self, raw, dt):
        # kept apart from update(): its many locals put its frame on the heap (perf.md 1.4)
        stable = self.stable
        changed = self.changed
        pending = self._pending
        elapsed = self._elapsed
        pol = self.polarity
        press = self.press_ms
        release = self.release_ms
        npending = 0
        flipped = False
        for b in range(len(stable)):
            diff = raw[b] ^ stable[b]
            was = pending[b]
            if not (diff | was):
                continue
            flip = 0
            if diff:
                level = raw[b] ^ pol
                base = b << 3
                bit = 0
                m = diff
                while m:
                    if m & 1:
                        i = base + bit
                        if (was >> bit) & 1:
                            t = elapsed[i] + dt
                            if t > 255:
                                t = 255
                        else:
                            t = 0
                        if t >= (press if (level >> bit) & 1 else release):
                            flip |= 1 << bit
                        elapsed[i] = t
                    m >>= 1
                    bit += 1
            if flip:
                stable[b] ^= flip
                changed[b] = flip
                flipped = True
            left = diff & ~flip
            pending[b] = left
            if left:
                npending += 1
        self._npending = npending
        self._dirty_changed = flipped
        return flipped
