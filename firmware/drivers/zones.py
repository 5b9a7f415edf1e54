"""Zone reader: debounced sensor slots (and their stack levels) -> per-zone checker counts and
colours, with stuck-sensor faults."""

from array import array

from micropython import const

from firmware import ZONES
from firmware.drivers.ticks import ticks_diff

# a zone's colour as analog sensing tells it (``colour``): the side + 1 of the checkers seen, 0
# unknown; colours, not sides (the rules' WHITE and BLACK are the sides 0 and 1)
COLOUR_WHITE = const(1)
COLOUR_BLACK = const(2)
_COLOUR_MIXED = const(3)      # both: COLOUR_WHITE | COLOUR_BLACK


class ZoneReader:
    """Turn a scanner's slots into ``counts`` / ``colour`` / ``faults`` per zone (0..27).

    The scanner's raw bytes are ``levels`` occupancy planes (plane k: the slot holds more than k
    checkers; one plane for presence-only sensors) and, when it tells colours, a Black plane; a
    zone's count is the sum of its slots' levels, its ``capacity`` slots x levels.

    A slot is not believed (masked, and its zone's bit set in ``faults``) when:
    * stuck: on a point (zone < ``ordered``) it reads occupied above an empty slot nearer the base
      for ``stuck_ms`` (checkers stand in a row from the base; a lone reading up the point that
      does not go away is a sensor stuck on, or a checker to push down);
    * chattering: its debounced state flipped ``chatter_count`` times in a row, each less than
      ``quick_ms`` after the one before (a magnet hovering at a switch's threshold; a hand
      lifting and placing the same checker is slower than that);
    * railed (analog): the scanner reports an open or shorted sensor.
    A masked slot is believed again at the end of a ``chatter_ms`` window in which it reads empty
    and flipped at most once (a stuck sensor that came free, a checker pushed down).
    """

    stuck_ms = 5000
    chatter_count = 4
    quick_ms = 250
    chatter_ms = 2000

    def __init__(self, cfg, scanner, debouncer, stuck_ms=None, chatter_count=None, chatter_ms=None,
                 quick_ms=None):
        if quick_ms is not None:
            self.quick_ms = quick_ms
        if stuck_ms is not None:
            self.stuck_ms = stuck_ms
        if chatter_count is not None:
            self.chatter_count = chatter_count
        if chatter_ms is not None:
            self.chatter_ms = chatter_ms
        self.scanner = scanner
        self.debouncer = debouncer
        self.n = cfg.n_slots
        self.first = cfg.zone_first
        self.slots = cfg.zone_cap
        levels = getattr(scanner, "levels", 1)
        self.levels = levels
        self.capacity = bytearray(c * levels for c in cfg.zone_cap)
        self.slot_zone = cfg.slot_zone
        self.ordered = cfg.ordered_zones
        self.counts = bytearray(ZONES)
        self.colour = bytearray(ZONES)
        self.faults = 0
        self.unclear = 0                 # zones with a slot no stack of one colour explains
        self._unclear = getattr(scanner, "unclear", None)
        nb = (self.n + 7) >> 3
        self.nbytes = nb
        self.has_colour = len(debouncer.stable) >= (levels + 1) * nb
        self._bad = bytearray(nb)        # slots masked by stuck or chatter detection
        self._none = bytes(nb)
        self._toggles = bytearray(self.n)   # flips in the current chatter_ms window
        self._quick = bytearray(self.n)     # consecutive quick flips
        self._last_flip = array("i", [0] * self.n)
        self._gap_since = [0] * ZONES
        self._gapped = 0                 # bitmap of zones with a gap being timed
        self._dirty = 0                  # bitmap of zones to recount
        self._window = None
        self._toggled = False
        self._masking = False            # some slot is masked
        self._changed = False

    def occupied(self, s):
        """Debounced, believed reading of slot s (1 occupied)."""
        if (self._bad[s >> 3] >> (s & 7)) & 1:
            return 0
        rail = self.scanner.faults
        if rail is not None and (rail[s >> 3] >> (s & 7)) & 1:
            return 0
        return self.debouncer.active(s)

    def poll(self, now):
        """Scan once; True when a zone count, colour or fault changed since the last poll."""
        raw = self.scanner.scan()
        deb = self.debouncer
        if deb.update(raw, now):
            self._note_flips(deb.changed, now)
        sc = self.scanner
        if sc.faults is not None and sc.fault_changed:
            sc.fault_changed = False
            self._dirty_slots(sc.faults)
            if self._unclear is not None:
                self._dirty = (1 << ZONES) - 1     # (an unclear slot came or went)
        if self._toggled or self._masking:           # a chatter window is running
            if self._window is None:
                self._window = now
            elif ticks_diff(now, self._window) >= self.chatter_ms:
                self._window = now
                self._end_window()
        if self._gapped:
            self._time_gaps(now)
        if self._dirty:
            self._recount(now)
        changed = self._changed
        self._changed = False
        return changed

    def _dirty_slots(self, bitmap):
        slot_zone = self.slot_zone
        for b in range(self.nbytes):
            m = bitmap[b]
            bit = 0
            while m:
                if m & 1:
                    self._dirty |= 1 << slot_zone[(b << 3) + bit]
                m >>= 1
                bit += 1

    def _note_flips(self, changed, now):
        nb = self.nbytes
        slot_zone = self.slot_zone
        toggles = self._toggles
        for b in range(len(changed)):
            m = changed[b]
            if not m:
                continue
            plane = b // nb
            base = (b - plane * nb) << 3
            bit = 0
            while m:
                if m & 1:
                    s = base + bit
                    self._dirty |= 1 << slot_zone[s]
                    if not plane:
                        self._toggled = True
                        t = toggles[s] + 1
                        if t < 255:
                            toggles[s] = t
                        self._note_quick(s, now)
                m >>= 1
                bit += 1

    def _note_quick(self, s, now):
        q = self._quick[s] + 1 if ticks_diff(now, self._last_flip[s]) < self.quick_ms else 0
        self._last_flip[s] = now
        if q >= self.chatter_count:
            self._bad[s >> 3] |= 1 << (s & 7)
            self._masking = True
        self._quick[s] = q if q < 255 else 255

    def _end_window(self):
        self._toggled = False
        bad = self._bad
        toggles = self._toggles
        deb = self.debouncer
        for b in range(self.nbytes):
            m = bad[b]
            bit = 0
            while m:
                if m & 1:
                    s = (b << 3) + bit
                    if toggles[s] <= 1 and not deb.active(s):
                        bad[b] &= ~(1 << bit)
                        self._dirty |= 1 << self.slot_zone[s]
                m >>= 1
                bit += 1
        for s in range(self.n):
            toggles[s] = 0
        self._masking = self._bad != self._none
        if not self._masking:
            self._window = None                      # quiet: no window until the next flip

    def _time_gaps(self, now):
        g = self._gapped
        z = 0
        while g:
            if g & 1 and ticks_diff(now, self._gap_since[z]) >= self.stuck_ms:
                self._mask_above_gap(z)
                self._gapped &= ~(1 << z)
                self._dirty |= 1 << z
            g >>= 1
            z += 1

    def _mask_above_gap(self, z):
        first = self.first[z]
        seen_empty = False
        bad = self._bad
        for s in range(first, first + self.slots[z]):
            m = 1 << (s & 7)
            if bad[s >> 3] & m:
                continue
            if self.occupied(s):
                if seen_empty:
                    bad[s >> 3] |= m
                    self._masking = True
            else:
                seen_empty = True

    def _recount(self, now):
        dirty = self._dirty
        self._dirty = 0
        deb = self.debouncer
        stable = deb.stable
        pol = deb.polarity
        nb = self.nbytes
        colour_on = self.has_colour
        levels = self.levels
        cplane = levels * nb
        rail = self.scanner.faults
        bad = self._bad
        unc = self._unclear
        unclear = self.unclear
        z = 0
        while dirty:
            if dirty & 1:
                first = self.first[z]
                count = 0
                colours = 0
                gap = False
                seen_empty = False
                masked = False
                unclear &= ~(1 << z)
                for s in range(first, first + self.slots[z]):
                    b = s >> 3
                    m = 1 << (s & 7)
                    if bad[b] & m or (rail is not None and rail[b] & m):
                        masked = True
                        continue
                    if unc is not None and unc[b] & m:
                        unclear |= 1 << z
                    if (stable[b] ^ pol) & m:
                        count += 1
                        p = nb + b
                        for _ in range(1, levels):       # the stack's further checkers
                            if stable[p] & m:
                                count += 1
                            p += nb
                        if seen_empty:
                            gap = True
                        if colour_on:
                            colours |= COLOUR_BLACK if stable[cplane + b] & m else COLOUR_WHITE
                    else:
                        seen_empty = True
                zbit = 1 << z
                if z < self.ordered:
                    if gap and not (self._gapped & zbit):
                        self._gapped |= zbit
                        self._gap_since[z] = now
                    elif not gap:
                        self._gapped &= ~zbit
                faults = (self.faults | zbit) if masked else (self.faults & ~zbit)
                if count != self.counts[z] or colours != self.colour[z] or faults != self.faults \
                        or unclear != self.unclear:
                    self.unclear = unclear
                    self.counts[z] = count
                    self.colour[z] = colours
                    self.faults = faults
                    self._changed = True
            dirty >>= 1
            z += 1

    def clear_faults(self):
        """Believe every slot again (after a repair or a recalibration)."""
        for b in range(self.nbytes):
            self._bad[b] = 0
        self._masking = False
        self._dirty = (1 << ZONES) - 1
