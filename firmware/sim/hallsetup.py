"""The simulated Hall field's one-time work: board.json's model read into a HallField's tables,
and the factory calibration of a simulated board. Loaded for the call and dropped again
(firmware.sim.hallfield), so its code takes no heap while the board plays."""

from array import array


def setup(f, cfg, seed):
    """Read board.json's model (``cfg.analog``) into the HallField ``f`` (its ``__init__``)."""
    a = cfg.analog
    st = a["stack"]
    n = cfg.n_slots
    # one level more than the sensors count: a 4th magnet on a 3-stack (a 16th checker on a
    # full zone) has its field too (its lateral factor and crosstalk: the 3rd's)
    f.levels = k = st["levels"] + 1
    f.l1 = st["levels_mT"][0]         # one checker's field (mT)
    f.per_mt = a["sensitivity_mv_mt"] * 4095 / a["adc_mv"]     # codes per mT (signed)
    if a["white"] != "below":
        f.per_mt = -f.per_mt
    p = array("d", bytes(8 * (15 + 3 * k)))      # its size once (no growing: heap holes)
    i = 0
    for x in ("magnet.br_t magnet.thickness_mm magnet.seat_mm checker.thickness_mm "
              "tolerances.br_t tolerances.thickness_mm tolerances.seat_mm "
              "tolerances.checker_mm tolerances.gain_pct tolerances.offset_codes "
              "tolerances.depth_mm tolerances.placement_mm tolerances.stack_mm "
              "magnet.diameter_mm sensor_depth_mm lateral_per_mm2 crosstalk_mT.along "
              "crosstalk_mT.across").split():
        d = st
        for key in x.split("."):
            d = d[key]
        for v in d if isinstance(d, list) else (d,):      # (a list: per level)
            p[i] = v
            i += 1
        if isinstance(d, list):
            p[i] = d[-1]
            i += 1
    p[13] /= 2.0                      # the magnet's radius
    f.noise = st["tolerances"]["noise_codes"]
    f.p = p
    f.neighbours = cfg.neighbours()
    f._lcg = (seed * 2654435761 + 7) & 0x7FFFFFFF or 1
    f.seed = seed
    f.ids = bytearray(b"\xff" * (k * n))  # magnet id | 0x40 if Black, per stack position
    f.r2 = bytearray(k * n)               # lateral offset squared, 0.1 mm^2
    f.code = array("h", bytes(2 * n))     # per slot: codes off the nominal zero, no noise
    f._noise = f._lcg
    for i in range(n):
        f.refresh(i)


def calibration(world, scanner):
    """What the factory measures on the simulated board ``world`` with its own scanner: the
    zeros with the board empty, then the gains with one White checker (a loose magnet) on every
    slot (``scanner.calibration()``: bytes). The checkers on the board are put back afterwards.
    The world's field (when it has one) takes the scanner's neighbour table: one for both."""
    n = world.cfg.n_slots
    f = world.field
    keep = None
    if f is not None:
        f.neighbours = scanner.neighbours
    if any(world.lev):               # checkers on the board: set them aside meanwhile
        keep = (bytes(world.lev), bytes(world.col))
        if f is not None:
            keep += (bytes(f.ids), bytes(f.r2))
    for s in range(n):
        world.set_stack(s, ())
    scanner.calibrate(8)
    for s in range(n):
        world.set_stack(s, (1,))
    scanner.calibrate_units(8)
    out = scanner.calibration()
    for s in range(n):
        world.set_stack(s, ())
    if keep is not None:
        world.lev[:] = keep[0]
        world.col[:] = keep[1]
        if f is not None:
            f.ids[:] = keep[2]
            f.r2[:] = keep[3]
            for s in range(n):
                f.refresh(s)
    return out
