"""The ``sim`` protocol commands: lift, place, press, frame, setup, wait, position, leds, power_cut.

A feature module of the simulated board (``app.features["sim"]``), loaded for each command and
dropped after it, so the hands that stay on the world (firmware.sim.hands) hold only their
checkers and moves, not the command parser.
"""

from firmware.sim.hands import force_position


def run(app, words, fail, need):
    from firmware.board.protocol import number    # (loaded: it runs this command)
    from firmware.board.zonemap import parse_zone
    sim = app.sim
    if sim is None:
        fail("sim commands need the simulated hardware")
    if len(words) < 2:
        fail("usage: sim lift|place|press|frame|setup|wait|leds|power_cut ...")
    act = words[1]
    if act == "lift":
        if len(words) not in (3, 4):
            fail("usage: sim lift <zone> [side]")
        z = parse_zone(words[2])
        if z < 0:
            fail("zone is 1..24, bar0, bar1, off0 or off1")
        sim.lift(z, number(words[3], 0, 1, "side") if len(words) == 4 else -1)
    elif act == "place":
        if len(words) not in (3, 4):
            fail("usage: sim place <zone> [side]")
        z = parse_zone(words[2])
        if z < 0:
            fail("zone is 1..24, bar0, bar1, off0 or off1")
        side = number(words[3], 0, 1, "side") if len(words) == 4 else -1
        sim.place(z, side)
    elif act == "press":
        from firmware.drivers.buttons import NAMES
        if len(words) not in (3, 4):
            fail("usage: sim press p0|p1|menu [ms]")
        if words[2] not in NAMES:
            fail("button is p0, p1 or menu")
        ms = number(words[3], 1, 10000, "ms") if len(words) == 4 else 80
        sim.press(NAMES.index(words[2]), ms)
    elif act == "frame":
        need(words, 3, "sim frame <56 hex digits: 28 zone counts>")
        sim.frame(_hex_frame(words[2], fail))
    elif act == "setup":
        need(words, 2, "sim setup")
        sim.setup(app.session.tracked_board(), app.session.zmap)
        _set_out(app)
    elif act == "wait":
        need(words, 3, "sim wait <ms>")
        sim.wait(number(words[2], 0, 600000, "ms"))
    elif act == "position":
        need(words, 3, "sim position <53 hex digits: Position.encode()>")
        if app.session.auth.locked and app.by != "dir":     # it changes the game: as "position"
            fail("the board is locked for tournament play: only the director may set a position")
        from firmware.rules.position import Position, PositionError
        try:
            pos = Position.decode(words[2])
            app.session.rules.validate(pos)
        except (PositionError, ValueError) as exc:
            fail("bad position: %s" % exc)
        force_position(app.session, pos, app.by)
        sim.setup(pos.board, app.session.zmap)
        _set_out(app)
    elif act == "leds":
        need(words, 3, "sim leds on|off")
        if words[2] not in ("on", "off"):
            fail("sim leds is on or off")
        sim.led_lines = words[2] == "on"
    elif act == "power_cut":
        need(words, 2, "sim power_cut")
        app.power_cut()
    else:
        fail("unknown sim action %r" % act[:12])


def _set_out(app):
    """The checkers were set out between two scans, which no hand does: a slot's stack may now
    be of other magnets without the slot having been empty on the way, so the analog scanner
    forgets the units it learnt (as it does for a slot seen empty) and learns them again."""
    forget = getattr(getattr(app.hw.zones, "scanner", None), "forget", None)
    if forget is not None:
        forget()


def _hex_frame(word, fail):
    from firmware.board.zonemap import ZONES
    if len(word) != 2 * ZONES:
        fail("a frame is 56 hex digits (28 zone counts)")
    out = bytearray(ZONES)
    for i in range(ZONES):
        try:
            out[i] = int(word[2 * i:2 * i + 2], 16)
        except ValueError:
            fail("a frame is hex digits")
    return out
