"""The host-link line protocol: one command per line in, one JSON object per line out.

``handle(app, line)`` parses and runs one command on an ``App``; every command ends with exactly
one ``ok`` or ``err`` line, and an ``err`` means nothing changed. docs/protocol.md is the
reference and must say what this module does.
"""

from firmware.board.zonemap import parse_zone

HELP = ("status | new <variant> [key=value ...] | match <n> | mode guide|referee | "
        "dice auto|manual | roll <a> <b> | choose <v> | cube double|take|drop | condone on|off | "
        "clock <reserve s> [delay s] | clock off | resign [1|2|3] | resign accept|refuse | mix <hex> | "
        "export | help | sim lift <zone> | sim place <zone> [side] | sim press p0|p1|menu [ms] | "
        "sim frame <hex> | sim setup | sim position <hex> | sim wait <ms> | sim leds on|off | "
        "sim power_cut")

MAX_LINE = 200
BUTTONS = ("p0", "p1", "menu")


class CommandError(ValueError):
    """A refused command: the message goes into the err line."""


def _int(word, lo, hi, what):
    try:
        v = int(word)
    except ValueError:
        raise CommandError("%s must be a number, got %r" % (what, word[:12]))
    if not lo <= v <= hi:
        raise CommandError("%s must be %d..%d" % (what, lo, hi))
    return v


def _need(words, n, usage):
    if len(words) != n:
        raise CommandError("usage: " + usage)


def handle(app, line):
    """Run one command line; returns True when it succeeded."""
    if len(line) > MAX_LINE:
        app.emit("err", {"cmd": line[:40], "msg": "line longer than %d characters" % MAX_LINE})
        return False
    text = line.strip()
    if not text:
        return True
    words = text.split()
    name = words[0].lower()
    try:
        fn = COMMANDS.get(name)
        if fn is None:
            raise CommandError("unknown command %r (try help)" % name[:20])
        fn(app, words)
    except CommandError as exc:
        app.emit("err", {"cmd": text[:40], "msg": str(exc)})
        return False
    except ValueError as exc:          # refused by the session or the rules: nothing changed
        app.emit("err", {"cmd": text[:40], "msg": str(exc)})
        return False
    except Exception as exc:           # a bug: say so on the link rather than stop the board
        app.emit("err", {"cmd": text[:40], "msg": "internal error: %r" % (exc,)})
        return False
    app.emit("ok", {"cmd": name})
    return True


def _status(app, words):
    _need(words, 1, "status")
    app.session.emit_status()


def _new(app, words):
    if len(words) < 2:
        raise CommandError("usage: new <variant> [key=value ...]")
    options = {}
    for w in words[2:]:
        key, sep, value = w.partition("=")
        if not sep or not key or not value:
            raise CommandError("options are key=value, got %r" % w[:20])
        options[key] = value
    app.session.new_match(words[1].lower(), options)


def _match(app, words):
    _need(words, 2, "match <n>")
    app.session.new_match(None, None, _int(words[1], 1, 99, "match length"))


def _mode(app, words):
    _need(words, 2, "mode guide|referee")
    if words[1] not in ("guide", "referee"):
        raise CommandError("mode is guide or referee")
    app.session.configure("mode", words[1])


def _dice(app, words):
    _need(words, 2, "dice auto|manual")
    if words[1] not in ("auto", "manual"):
        raise CommandError("dice is auto or manual")
    app.session.configure("dice_mode", words[1])


def _roll(app, words):
    _need(words, 3, "roll <a> <b>")
    app.session.manual_roll(_int(words[1], 1, 6, "die"), _int(words[2], 1, 6, "die"))


def _choose(app, words):
    _need(words, 2, "choose <1..6>")
    app.session.choose(_int(words[1], 1, 6, "doublet"))


def _cube(app, words):
    _need(words, 2, "cube double|take|drop")
    app.session.cube(words[1])


def _condone(app, words):
    _need(words, 2, "condone on|off")
    if words[1] not in ("on", "off"):
        raise CommandError("condone is on or off")
    app.session.configure("condone", words[1] == "on")


def _clock(app, words):
    if len(words) == 2 and words[1] == "off":
        app.session.set_clock(0, 0)
        return
    if len(words) not in (2, 3):
        raise CommandError("usage: clock <reserve seconds> [delay seconds] | clock off")
    reserve = _int(words[1], 1, 36000, "reserve (seconds)")
    delay = _int(words[2], 0, 600, "delay (seconds)") if len(words) == 3 else 12
    app.session.set_clock(reserve * 1000, delay * 1000)


def _resign(app, words):
    if len(words) > 2:
        raise CommandError("usage: resign [1|2|3] | resign accept|refuse")
    arg = words[1] if len(words) == 2 else "1"
    if arg in ("accept", "refuse"):
        app.session.answer_resign(arg == "accept")
    else:
        app.session.offer_resign(_int(arg, 1, 3, "resignation level"))


def _mix(app, words):
    _need(words, 2, "mix <2 to 64 hex digits>")
    w = words[1]
    if len(w) % 2 or not 2 <= len(w) <= 64:
        raise CommandError("mix is 2 to 64 hex digits, an even number")
    try:
        data = bytes(int(w[i:i + 2], 16) for i in range(0, len(w), 2))
    except ValueError:
        raise CommandError("mix is hex digits")
    app.session.mix_dice(data)


def _export(app, words):
    _need(words, 1, "export")
    app.emit("record", app.session.record())


def _help(app, words):
    app.emit("help", {"commands": HELP})


def _sim(app, words):
    sim = app.sim
    if sim is None:
        raise CommandError("sim commands need the simulated hardware")
    if len(words) < 2:
        raise CommandError("usage: sim lift|place|press|frame|setup|wait|leds|power_cut ...")
    act = words[1]
    if act == "lift":
        if len(words) not in (3, 4):
            raise CommandError("usage: sim lift <zone> [side]")
        z = parse_zone(words[2])
        if z < 0:
            raise CommandError("zone is 1..24, bar0, bar1, off0 or off1")
        sim.lift(z, _int(words[3], 0, 1, "side") if len(words) == 4 else -1)
    elif act == "place":
        if len(words) not in (3, 4):
            raise CommandError("usage: sim place <zone> [side]")
        z = parse_zone(words[2])
        if z < 0:
            raise CommandError("zone is 1..24, bar0, bar1, off0 or off1")
        side = _int(words[3], 0, 1, "side") if len(words) == 4 else -1
        sim.place(z, side)
    elif act == "press":
        if len(words) not in (3, 4):
            raise CommandError("usage: sim press p0|p1|menu [ms]")
        if words[2] not in BUTTONS:
            raise CommandError("button is p0, p1 or menu")
        ms = _int(words[3], 1, 10000, "ms") if len(words) == 4 else 80
        sim.press(BUTTONS.index(words[2]), ms)
    elif act == "frame":
        _need(words, 3, "sim frame <56 hex digits: 28 zone counts>")
        sim.frame(_hex_frame(words[2]))
    elif act == "setup":
        _need(words, 2, "sim setup")
        sim.setup(app.session.tracked_board(), app.session.zmap)
    elif act == "wait":
        _need(words, 3, "sim wait <ms>")
        sim.wait(_int(words[2], 0, 600000, "ms"))
    elif act == "position":
        _need(words, 3, "sim position <53 hex digits: Position.encode()>")
        from firmware.rules.position import Position, PositionError
        try:
            pos = Position.decode(words[2])
            app.session.rules.validate(pos)
        except (PositionError, ValueError) as exc:
            raise CommandError("bad position: %s" % exc)
        app.session.force_position(pos)
        sim.setup(pos.board, app.session.zmap)
    elif act == "leds":
        _need(words, 3, "sim leds on|off")
        if words[2] not in ("on", "off"):
            raise CommandError("sim leds is on or off")
        sim.led_lines = words[2] == "on"
    elif act == "power_cut":
        _need(words, 2, "sim power_cut")
        app.power_cut()
    else:
        raise CommandError("unknown sim action %r" % act[:12])


def _hex_frame(word):
    if len(word) != 56:
        raise CommandError("a frame is 56 hex digits (28 zone counts)")
    out = bytearray(28)
    for i in range(28):
        try:
            out[i] = int(word[2 * i:2 * i + 2], 16)
        except ValueError:
            raise CommandError("a frame is hex digits")
    return out


COMMANDS = {"status": _status, "new": _new, "match": _match, "mode": _mode, "dice": _dice,
            "roll": _roll, "choose": _choose, "cube": _cube, "condone": _condone, "clock": _clock,
            "resign": _resign, "mix": _mix,
            "export": _export, "help": _help, "sim": _sim}
