"""The physics of stacked checker magnets over a linear Hall sensor: fields, crosstalk, tolerances.

Each checker carries one axially magnetised NdFeB disc, seated in a recess in its underside; a
linear Hall sensor sits under each slot of a zone at ``sensor_depth_mm`` below the playing
surface. A uniformly magnetised cylinder is two discs of magnetic surface charge (+M on the top
face, -M on the bottom one); B_z at a point is the sum of their Coulomb-like fields. On the axis
that integral has the closed form B = Br/2 [(h+L)/sqrt((h+L)^2+R^2) - h/sqrt(h^2+R^2)] (h: height
of the magnet's lower face above the sensor); off the axis (a checker placed off centre, the stack
on the next slot) it is integrated numerically over the faces. Superposition holds (NdFeB has a
relative permeability of ~1.05), so a slot reads the sum over its own stack plus its neighbours'.

Everything here is host-side: ``hardware_gen`` derives board.json's ``analog.stack`` model
(nominal level fields, lateral fall-off, crosstalk) from the geometry, and ``cmd_sensing`` draws
tolerances per magnet and per sensor for the classification table.
"""

import math

KINDS = ("along", "across")      # a neighbour slot on the same zone's row, or on the zone beside


def on_axis(br, radius, length, h):
    """B_z (mT) on the axis of a disc magnet whose lower face is ``h`` mm above the sensor."""
    top = h + length
    return br * 500.0 * (top / math.sqrt(top * top + radius * radius)
                         - h / math.sqrt(h * h + radius * radius))


def _face(radius, zc, r, nr, nphi):
    """B_z / (Br / 4 pi) at (r, 0, 0) of a unit-charge disc of ``radius`` at height zc."""
    total = 0.0
    dz = -zc
    dr = radius / nr
    dphi = 2 * math.pi / nphi
    cos = [math.cos((j + 0.5) * dphi) for j in range(nphi)]
    sin2 = [math.sin((j + 0.5) * dphi) ** 2 for j in range(nphi)]
    for i in range(nr):
        rr = (i + 0.5) * dr
        da = rr * dr * dphi
        for j in range(nphi):
            x = r - rr * cos[j]
            d2 = x * x + rr * rr * sin2[j] + dz * dz
            total += dz / (d2 * math.sqrt(d2)) * da
    return total


def off_axis(br, radius, length, r, h, nr=48, nphi=96):
    """B_z (mT) at a sensor ``r`` mm off the magnet's axis, lower face ``h`` mm above it."""
    # faces: +M at h + L, -M at h; the field point is at height 0, below both
    return br / (4 * math.pi) * 1000.0 * (
        _face(radius, h + length, r, nr, nphi) - _face(radius, h, r, nr, nphi))


class StackGeometry:
    """The nominal geometry of board.json's ``analog.stack`` and what follows from it."""

    def __init__(self, stack):
        m = stack["magnet"]
        c = stack["checker"]
        self.stack = stack
        self.br = m["br_t"]
        self.radius = m["diameter_mm"] / 2.0
        self.length = m["thickness_mm"]
        self.seat = m["seat_mm"]
        self.t = c["thickness_mm"]
        self.depth = stack["sensor_depth_mm"]
        self.levels = stack["levels"]
        self.pitch = {"along": stack["pitch_along_mm"], "across": stack["pitch_across_mm"]}

    def height(self, k):
        """Nominal height of the k-th (0 = bottom) magnet's lower face above the sensor."""
        return self.depth + self.seat + k * self.t

    def magnet_field(self, k, r=0.0):
        h = self.height(k)
        if r == 0.0:
            return on_axis(self.br, self.radius, self.length, h)
        return off_axis(self.br, self.radius, self.length, r, h)

    def level_fields(self, n=None):
        """Cumulative on-axis field (mT) of stacks of 1 .. n checkers."""
        out = []
        total = 0.0
        for k in range(n or self.levels):
            total += self.magnet_field(k)
            out.append(total)
        return out

    def lateral(self, k, r=3.0):
        """Fall-off coefficient a of the k-th magnet: B(r) = B(0) (1 - a r^2), fitted at r."""
        return (1.0 - self.magnet_field(k, r) / self.magnet_field(k)) / (r * r)

    def crosstalk(self, kind, n=None):
        """Cumulative field (mT) that stacks of 1 .. n checkers put on the sensor of the
        neighbouring slot (``kind``: along the zone's row, or on the zone beside)."""
        out = []
        total = 0.0
        for k in range(n or self.levels):
            total += self.magnet_field(k, float(self.pitch[kind]))
            out.append(total)
        return out

    def model(self):
        """The derived block board.json keeps (rounded as it is stored)."""
        return {"levels_mT": [round(x, 2) for x in self.level_fields()],
                "lateral_per_mm2": [round(self.lateral(k), 5) for k in range(self.levels)],
                "crosstalk_mT": {kind: [round(x, 2) for x in self.crosstalk(kind)]
                                 for kind in KINDS}}


class Tolerances:
    """Draws of the physical spread (board.json ``analog.stack.tolerances``), from one rng."""

    def __init__(self, geo, rng):
        self.geo = geo
        self.tol = geo.stack["tolerances"]
        self.rng = rng

    def magnet(self):
        """(Br in T, thickness mm, seat mm, checker thickness mm) of one checker."""
        g, t, u = self.geo, self.tol, self.rng.uniform
        return (g.br + u(-t["br_t"], t["br_t"]), g.length + u(-t["thickness_mm"], t["thickness_mm"]),
                g.seat + u(-t["seat_mm"], t["seat_mm"]),
                g.t + u(-t["checker_mm"], t["checker_mm"]))

    def sensor(self):
        """(gain factor, zero offset in codes, depth error mm) of one sensor."""
        t, u = self.tol, self.rng.uniform
        return (1.0 + u(-t["gain_pct"], t["gain_pct"]) / 100.0,
                u(-t["offset_codes"], t["offset_codes"]), u(-t["depth_mm"], t["depth_mm"]))

    def offset(self, first):
        """(x, y) mm of a checker placed on a slot (first) or on the checker below it."""
        t = self.tol["placement_mm"] if first else self.tol["stack_mm"]
        while True:
            x = self.rng.uniform(-t, t)
            y = self.rng.uniform(-t, t)
            if x * x + y * y <= t * t:
                return x, y

    def stack_field(self, magnets, depth_error):
        """B_z (mT, one polarity) of a stack of drawn magnets over a sensor ``depth_error`` mm
        deeper than nominal, each checker placed with a fresh lateral offset."""
        g = self.geo
        lat = g.stack["lateral_per_mm2"] if "lateral_per_mm2" in g.stack else None
        h = g.depth + depth_error
        x = y = 0.0
        total = 0.0
        for k, (br, length, seat, thick) in enumerate(magnets):
            dx, dy = self.offset(k == 0)
            x += dx
            y += dy
            a = lat[min(k, len(lat) - 1)] if lat is not None else g.lateral(k)
            total += on_axis(br, g.radius, length, h + seat) * (1.0 - a * (x * x + y * y))
            h += thick
        return total
