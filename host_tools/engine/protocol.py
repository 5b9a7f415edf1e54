"""The engine protocol: one command per line in, one answer per line out (text, or JSON).

Commands (see docs/engine.md)::

    variant NAME [option=value ...]    choose the variant (default backgammon); resets the position
    level NAME                         beginner, casual, intermediate, advanced, expert (default),
                                       1ply (expert's best few searched one ply deeper)
    position TEXT|ID                   readable form, or the 53-hex-digit compact form
    start                              the variant's start position, White to move
    dice A B                           the roll of the side to move
    first on|off                       is this the mover's first turn (long nardy's head rule)
    play                               the chosen play at the level, in standard notation
    hint [N]                           the best N plays (default 3) with their equities
    eval                               the outcome probabilities and cubeless equity, side to move
    cube [centre|mine] [beaver]        the money cube decision of the side on roll (who owns the
                                       cube now; whether beavers are allowed)
    quit

An answer is one line: ``ok ...`` / ``play ...`` / ``hint ...`` / ``eval ...``, or
``error: <reason>``; with JSON, one object per line (``{"error": ...}`` for errors). A bad
line never stops the engine.
"""

import json

import numpy as np

from firmware.rules.game import Game
from firmware.rules.notation import format_steps
from firmware.rules.position import Position, PositionError
from firmware.rules.variants import VARIANTS, get_rules
from host_tools.engine import cube, weights
from host_tools.engine.encode import Geometry, features, position_view
from host_tools.engine.outcomes import Outcomes
from host_tools.engine.players import LEVELS, NetPlayer, SearchPlayer

MAX_LINE = 4096


class ProtocolError(ValueError):
    """A line the engine cannot act on; the answer is its one-line reason."""


def _steps_text(turn, steps):
    """Standard notation of [(src, die), ...] played on ``turn`` (left as it was)."""
    for s, d in steps:
        turn.push_offered(s, d)
    done = turn.steps
    for _ in steps:
        turn.pop()
    return format_steps(done)


class Engine:
    """The protocol's state: variant, network, level, position, dice."""

    def __init__(self, variant="backgammon", level="expert", folder=None, seed=0):
        self.folder = folder
        self.rng = np.random.default_rng(seed)
        self.set_variant(variant, {})
        self.set_level(level)

    def set_variant(self, name, options):
        if name not in VARIANTS:
            raise ProtocolError("unknown variant %r (variants: %s)" % (name, ", ".join(sorted(VARIANTS))))
        try:
            self.rules = get_rules(name, **options)
        except ValueError as exc:
            raise ProtocolError(str(exc))
        try:
            self.net, self.record = weights.load(name, self.folder)
        except (LookupError, ValueError) as exc:
            raise ProtocolError(str(exc))
        self.out = Outcomes(self.rules)
        self.geo = Geometry(self.rules)
        self.pos = self.rules.start_position()
        self.dice = None
        self.first = False

    def set_level(self, name):
        if name not in LEVELS and name != "1ply":
            raise ProtocolError("unknown level %r (levels: %s, 1ply)" % (name, ", ".join(LEVELS)))
        self.level = name

    def _game(self):
        """A Game at the position with the dice rolled (the rules core's own Turn)."""
        if self.dice is None:
            raise ProtocolError("no dice: send 'dice A B' first")
        g = Game(self.rules, cube=False)
        g.set_position(self.pos)
        if self.first:
            g.played[self.pos.turn] = 0
        g.roll(*self.dice)
        return g

    def ranked(self, level=None):
        """[(equity, notation), ...] of every legal play of the roll, best first (``level``
        1ply: the best few searched one ply deeper)."""
        g = self._game()
        level = level or self.level
        if level == "1ply":
            player = SearchPlayer(self.net, self.rules)
        else:
            player = NetPlayer(self.net, self.rules)
        c, eq = player.ranked(g)
        if c.n == 0:
            return []
        order = np.argsort(-eq, kind="stable")
        return [(float(eq[i]), _steps_text(g.turn, c.steps(int(i)))) for i in order]

    def evaluate(self):
        o = self.net.forward(features(position_view(self.pos, self.pos.turn)[None], self.geo))[0]
        return {n: round(float(v), 4) for n, v in zip(self.out.names, o)}, float(self.out.equity(o))

    def handle(self, line):
        """Answer one command line: a dict (the JSON form of the answer)."""
        words = line.split()
        if not words:
            raise ProtocolError("empty line")
        cmd, args = words[0].lower(), words[1:]
        if cmd == "variant":
            if not args:
                raise ProtocolError("variant needs a name")
            opts = {}
            for a in args[1:]:
                k, sep, v = a.partition("=")
                if not sep:
                    raise ProtocolError("an option is name=value, got %r" % a)
                opts[k] = v
            self.set_variant(args[0], opts)
            return {"ok": "variant", "variant": self.rules.describe(),
                    "weights": self.record.get("weights_sha"), "games": self.record.get("training", {}).get("games")}
        if cmd == "level":
            if len(args) != 1:
                raise ProtocolError("level needs one name")
            self.set_level(args[0])
            return {"ok": "level", "level": self.level}
        if cmd == "start":
            self.pos = self.rules.start_position()
            self.dice = None
            return {"ok": "position", "position": str(self.pos)}
        if cmd == "position":
            text = line.split(None, 1)[1] if args else ""
            try:
                pos = Position.decode(text) if len(text.strip()) == 53 and ":" not in text else Position.parse(text)
                self.rules.validate(pos)
            except (PositionError, ValueError) as exc:
                raise ProtocolError("bad position: %s" % exc)
            self.pos = pos
            self.dice = None
            return {"ok": "position", "position": str(pos), "id": pos.encode()}
        if cmd == "dice":
            if len(args) != 2 or not all(a.isdigit() and 1 <= int(a) <= 6 for a in args):
                raise ProtocolError("dice needs two numbers 1..6")
            self.dice = (int(args[0]), int(args[1]))
            return {"ok": "dice", "dice": list(self.dice)}
        if cmd == "first":
            if args not in (["on"], ["off"]):
                raise ProtocolError("first needs on or off")
            self.first = args[0] == "on"
            return {"ok": "first", "first": self.first}
        if cmd == "play":
            ranked = self.ranked("1ply" if self.level == "1ply" else "expert")
            if not ranked:
                return {"play": "", "equity": None, "note": "no die can be played"}
            noise = LEVELS.get(self.level, 0.0)
            if noise:
                eq = np.array([e for e, _ in ranked]) + self.rng.normal(0, noise, len(ranked))
                e, text = ranked[int(np.argmax(eq))]
            else:
                e, text = ranked[0]
            return {"play": text, "equity": round(e, 4)}
        if cmd == "hint":
            n = 3
            if args:
                if not args[0].isdigit() or int(args[0]) < 1:
                    raise ProtocolError("hint N needs a positive number")
                n = int(args[0])
            best = "1ply" if self.level == "1ply" else "expert"      # hints: full strength
            return {"hint": [{"play": t, "equity": round(e, 4)} for e, t in self.ranked(best)[:n]]}
        if cmd == "cube":
            if not self.rules.cube:
                raise ProtocolError("%s is played without the cube here (variant option cube=on)"
                                    % self.rules.name)
            owner = "centre"
            beaver = False
            for a in args:
                if a in ("centre", "center", "mine"):
                    owner = "me" if a == "mine" else "centre"
                elif a == "beaver":
                    beaver = True
                else:
                    raise ProtocolError("cube takes centre|mine and beaver, got %r" % a)
            o = self.net.forward(features(position_view(self.pos, self.pos.turn)[None], self.geo))[0]
            return {"cube": cube.decide(self.out.consistent(o), self.out.results, owner, beaver)}
        if cmd == "eval":
            outs, eq = self.evaluate()
            return {"eval": outs, "equity": round(eq, 4)}
        raise ProtocolError("unknown command %r (variant, level, position, start, dice, first, "
                            "play, hint, eval, cube, quit)" % cmd)


def as_text(ans):
    """The one-line text form of an answer."""
    if "error" in ans:
        return "error: %s" % ans["error"]
    if "play" in ans:
        return "play %s" % (ans["play"] or "(none)") + (
            "  equity %+.4f" % ans["equity"] if ans["equity"] is not None else "")
    if "hint" in ans:
        return "hint " + " | ".join("%s %+.4f" % (h["play"], h["equity"]) for h in ans["hint"])
    if "cube" in ans:
        c = ans["cube"]
        return "cube %s, %s  no-double %+.4f double/take %+.4f double/pass %+.4f" % (
            c["action"], c["response"], c["no_double"], c["double_take"], c["double_pass"])
    if "eval" in ans:
        return "eval " + " ".join("%s=%.4f" % kv for kv in ans["eval"].items()) + \
            " equity=%+.4f" % ans["equity"]
    rest = " ".join("%s=%s" % (k, v) for k, v in ans.items() if k != "ok")
    return ("ok %s %s" % (ans["ok"], rest)).rstrip()


def serve(engine, lines, write, as_json=False):
    """Answer each line of ``lines`` with ``write(text)``, until ``quit`` or the end."""
    for raw in lines:
        if len(raw) > MAX_LINE:
            ans = {"error": "line longer than %d characters" % MAX_LINE}
        else:
            line = raw.strip()
            if line.lower() == "quit":
                return
            if not line or line.startswith("#"):
                continue
            try:
                ans = engine.handle(line)
            except ProtocolError as exc:
                ans = {"error": str(exc)}
            except Exception as exc:  # never a traceback: the engine keeps answering
                ans = {"error": "internal: %s: %s" % (type(exc).__name__, exc)}
        write(json.dumps(ans) if as_json else as_text(ans))
