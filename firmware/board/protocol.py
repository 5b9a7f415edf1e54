"""The host-link line protocol: one command per line in, one JSON object per line out.

``handle(app, line)`` parses and runs one command on an ``App``; every command ends with exactly
one ``ok`` or ``err`` line, and an ``err`` means nothing changed. A command that changes the game
carries its source into the record: ``host`` for the bare link, ``dir`` when the director signed
it (``dir <mac> <command>``, see ``identity``); while the board is locked the bare link may only
read. docs/protocol.md is the reference and must say what this module does.
"""

import gc

import firmware as features

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

_HELP = const(
    "status | new <variant> [key=value ...] | match <n> | mode guide|referee | "
    "dice auto|manual | roll <a> <b> | choose <v> | choose even|odd [side] | cube double|take|drop | "
    "condone on|off | clock <reserve s> [delay s] | clock off | resign [level] | resign accept|refuse | mix <hex> | "
    "export [serial|list] | identity | auth | dir <mac> <command> | provision <64 hex> | "
    "lock | unlock | help | sim lift <zone> | sim place <zone> [side] | sim press p0|p1|menu [ms] | "
    "sim frame <hex> | sim setup | sim position <hex> | sim wait <ms> | sim leds on|off | "
    "sim power_cut"
)

MAX_LINE = 200


class CommandError(ValueError):
    """A refused command: the message goes into the err line."""


def number(word, lo, hi, what):
    """``word`` as an int in lo..hi; CommandError naming ``what`` otherwise."""
    try:
        v = int(word)
    except ValueError:
        raise CommandError("%s must be a number, got %r" % (what, word[:12]))
    if not lo <= v <= hi:
        raise CommandError("%s must be %d..%d" % (what, lo, hi))
    return v


# host commands that change a game or the board's trust: refused from the bare host link while
# the board is locked (the director signs them with ``dir``)
_GATED = const(("new", "match", "mode", "dice", "roll", "choose", "cube", "condone", "clock",
                "resign", "mix", "provision", "lock", "unlock", "abandon"))


def _need(words, n, usage):
    if len(words) != n:
        raise CommandError("usage: " + usage)


def handle(app, line, by="host"):
    """Run one command line from ``by`` (the host link, or the director for a signed command);
    returns True when it succeeded."""
    if len(line) > MAX_LINE:
        app.emit("err", {"cmd": line[:40], "msg": "line longer than %d characters" % MAX_LINE})
        return False
    text = line.strip()
    if not text:
        return True
    words = text.split()
    name = words[0].lower()
    s = getattr(app, "session", None)
    j = s.journal if s is not None else None
    before = (j.serial, j.count) if j is not None else None     # (did a refused command act?)
    try:
        run(app, words, by)
    except CommandError as exc:
        app.emit("err", {"cmd": text[:40], "msg": str(exc)})
        return False
    except ValueError as exc:          # refused by the session or the rules: nothing changed
        app.emit("err", {"cmd": text[:40], "msg": str(exc)})
        return False
    except MemoryError:                # the heap, not the board: collect and let the host ask again
        gc.collect()
        if j is None or (j.serial, j.count) == before:
            app.emit("err", {"cmd": text[:40], "msg": "out of memory: send it again"})
        else:                          # it acted before it ran out (a new game begun, a line
            app.emit("err", {"cmd": text[:40],    # journaled): sent again, it would act twice
                             "msg": "out of memory after it took effect (game %d, line %d): "
                                    "read the status before sending it again"
                                    % (j.serial, j.count)})
        return False
    except Exception as exc:           # a bug: say so on the link rather than stop the board
        app.emit("err", {"cmd": text[:40], "msg": "internal error: %r" % (exc,)})
        return False
    app.emit("ok", {"cmd": name})
    return True


def _fail(msg):
    raise CommandError(msg)


def run(app, words, by):
    """Run one command (its words) from ``by``; raises CommandError/ValueError when refused."""
    name = words[0].lower()
    fn = COMMANDS.get(name)
    module = FEATURES.get(name) or getattr(app, "features", {}).get(name)
    if fn is None and module is None:
        raise CommandError("unknown command %r (try help)" % name[:20])
    if name in _GATED and by != "dir" and app.session.auth.locked:
        raise CommandError("the board is locked for tournament play: only the director may "
                           "send %r (dir <mac> %s ...)" % (name, name))
    app.by = by
    if fn is not None:
        fn(app, words)
        return
    # a feature module, loaded for this command only
    resident = module in features.sys.modules
    try:
        features.load(module).run(app, words, _fail, _need)
    finally:
        if not resident:
            features.drop(module, "firmware.board.restore", "firmware.board.gamereplay",
                          "firmware.board.repair")


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
    app.session.new_match(words[1].lower(), options, by=app.by)


def _match(app, words):
    _need(words, 2, "match <n>")
    app.session.new_match(None, None, number(words[1], 1, 99, "match length"), by=app.by)


def _roll(app, words):
    _need(words, 3, "roll <a> <b>")
    app.session.manual_roll(number(words[1], 1, 6, "die"), number(words[2], 1, 6, "die"), app.by)


def _choose(app, words):
    s = app.session
    if len(words) in (2, 3) and words[1] in ("even", "odd"):     # takhteh's parity call
        s._feature("set_call", number(words[2], 0, 1, "caller") if len(words) == 3
                   else s.call[0], words[1] == "even")
        return
    _need(words, 2, "choose <1..6> | choose even|odd [side]")
    s.choose(number(words[1], 1, 6, "doublet"), app.by)


def _help(app, words):
    app.emit("help", {"commands": _HELP})


COMMANDS = {"status": _status, "new": _new, "match": _match, "roll": _roll, "choose": _choose,
            "help": _help}

# commands of feature modules, loaded when one comes (their code is not in RAM meanwhile); the
# simulated hardware registers its own ("sim": firmware/sim/hands.py)
FEATURES = {"export": "firmware.board.director", "identity": "firmware.board.director",
            "auth": "firmware.board.director", "dir": "firmware.board.director",
            "provision": "firmware.board.director", "lock": "firmware.board.director",
            "unlock": "firmware.board.director", "mode": "firmware.board.settings",
            "dice": "firmware.board.settings", "condone": "firmware.board.settings",
            "clock": "firmware.board.settings", "mix": "firmware.board.settings",
            "cube": "firmware.board.offers", "resign": "firmware.board.offers"}
