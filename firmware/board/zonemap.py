"""Where each side's pips sit on the board's 28 sensing zones, and the counts a position shows."""

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

from firmware import ZONES       # the board's sensing zones (their one home: firmware/__init__.py)
BAR_ZONE = 24      # + side: 24 White's bar, 25 Black's bar
_TRAY_ZONE = const(26)     # + side: 26 White's tray, 27 Black's tray
_NOBODY = const(2)


class ZoneMap:
    """Pip <-> zone tables of one variant (zones 0..23 = triangles k 1..24)."""

    def __init__(self, rules):
        self.rules = rules
        # zone_of[side*26 + pip] -> zone
        self.zone_of = bytearray(52)
        # pip_at[side*ZONES + zone] -> pip, 255 where the side has no pip on that zone
        self.pip_at = bytearray(b"\xff" * (2 * ZONES))
        for side in (0, 1):
            for pip in range(26):
                if pip == 0:
                    z = _TRAY_ZONE + side
                elif pip == 25:
                    z = BAR_ZONE + side
                else:
                    z = rules.k_of(side, pip) - 1
                self.zone_of[side * 26 + pip] = z
                self.pip_at[side * ZONES + z] = pip

    def zone(self, side, pip):
        return self.zone_of[side * 26 + pip]

    def pip(self, side, zone):
        """The side's pip on a zone, or -1 when the zone is the other side's bar or tray."""
        p = self.pip_at[side * ZONES + zone]
        return -1 if p == 255 else p

    def expected(self, board, out, owner=None, cap=None):
        """Fill ``out`` (bytearray ZONES) with the checker count of each zone for a 52-count board;
        ``owner`` (bytearray ZONES), when given, gets the side holding each zone (2: nobody);
        with ``cap`` (each zone's capacity), the counts its sensors show (``shown``)."""
        zone_of = self.zone_of
        for z in range(ZONES):
            out[z] = 0
        if owner is not None:
            for z in range(ZONES):
                owner[z] = _NOBODY
        for i in range(52):
            n = board[i]
            if n:
                z = zone_of[i]
                out[z] += n
                if owner is not None:
                    owner[z] = 0 if i < 26 else 1
        if cap is not None:
            for z in range(ZONES):
                out[z] = shown(out[z], cap[z])


def shown(n, cap):
    """What a zone's sensors show of ``n`` checkers: at most its capacity ``cap`` (the checkers
    stacked past the slots and levels it can count are hidden)."""
    return n if n < cap else cap


def zone_name(z):
    """Protocol name of a zone: k 1..24, bar0, bar1, off0, off1."""
    if z < 24:
        return str(z + 1)
    if z < 26:
        return "bar%d" % (z - 24)
    return "off%d" % (z - 26)


def parse_zone(word):
    """Zone of a protocol name (see zone_name); -1 when it is not one."""
    if word in ("bar0", "bar1"):
        return 24 + int(word[3])
    if word in ("off0", "off1"):
        return 26 + int(word[3])
    try:
        k = int(word)
    except ValueError:
        return -1
    if 1 <= k <= 24:
        return k - 1
    return -1


def k_of(rules, side, pip):
    """A pip of ``side`` as the board's numbering shows it: triangle 1..24, "bar" or "off"."""
    if pip == 25:
        return "bar"
    if pip == 0:
        return "off"
    return rules.k_of(side, pip)


def k_steps(rules, side, steps):
    """Steps ``[src, dst, die, hit]`` in pips as the board's numbering shows them."""
    return [[k_of(rules, side, st[0]), k_of(rules, side, st[1]), st[2], st[3]] for st in steps]
