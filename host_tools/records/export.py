"""The board's game records (nardy-record/2): verified, replayed, and written as GNU Backgammon's .mat and SGF.

A record is what the board's ``export`` streams (``record``, one ``rl`` per sealed journal line,
``record_end``), assembled here into one object: ``{"format", "board", "serial", "key", "open",
"lines": ["<json>|<seal>", ...], "lines_n", "head", "tag", "lost", "ended"}``, and its
``events`` parsed for reading (never trusted: ``verify`` reads the lines). ``verify`` checks it
the way a tournament director must: every line's seal is the board's MAC (under the board's key,
from a ``Keyring``: the director's secret derives every board's key, and an unprovisioned board's
open key proves nothing and is said so), no line is missing, moved or copied, the board's tag
covers exactly these lines, the game ended, the dice are the committed seed's, and a game that
claims the tournament lock kept it (no bare host command changed it, no dice re-committed).
Then ``replay_record`` plays the events through the rules core (``GameReplay``), and ``write_mat``
/ ``write_sgf`` write the plays as gnubg writes them (mover's pips, 25 bar, 0 off, a pair per die).
Anything wrong raises ``ExportError`` saying which line and why.
"""

import hashlib
import json
import os

from host_tools import bounded

from firmware.board import director as signer
from firmware.board import fairdice
from firmware.board import record as rec
from firmware.board.gamereplay import GameReplay
from firmware.board.identity import OPEN_KEY, Mac, derive_key, equal, key_id
from firmware.rules import game as gm
from firmware.rules.position import Position

FORMAT = rec.FORMAT
NAMES = rec.SIDES                   # the players' names when none are given
MAX_LINE = 8192          # a sealed line longer than this is not one the board wrote


class ExportError(ValueError):
    """A record that cannot be exported; ``event`` is the index of the line at fault, or None."""

    def __init__(self, why, event=None):
        ValueError.__init__(self, why if event is None else "line %d: %s" % (event, why))
        self.why = why
        self.event = event


# -- reading --------------------------------------------------------------------------------------
def assemble(objs):
    """Records from protocol line objects in order (``record``, ``rl``..., ``record_end``); other
    lines are skipped. A record whose end never came is returned without ``tag``."""
    out = []
    cur = None
    for o in objs:
        if not isinstance(o, dict):
            continue
        t = o.get("t")
        if t == "record" and o.get("format") == FORMAT:
            cur = dict((k, v) for k, v in o.items() if k != "t")
            cur["lines"] = []
            out.append(cur)
        elif t == "rl" and cur is not None:
            cur["lines"].append(o.get("l"))
        elif t == "record_end" and cur is not None:
            for k in ("head", "tag", "lost", "ended", "damaged", "sig", "unsigned"):
                cur[k] = o.get(k)
            cur["lines_n"] = o.get("lines")
            cur["events"] = events_of(cur)
            cur = None
    return out


def events_of(record):
    """The events of a record's lines, in order (dicts; a line that is not one is left out).
    For reading and showing: ``verify`` checks the lines themselves."""
    out = []
    for line in record.get("lines") or []:
        try:
            ev = bounded.loads(line[:-33]) if isinstance(line, str) else None
        except ValueError:
            ev = None
        if isinstance(ev, dict):
            out.append(ev)
    return out


def load_records(path):
    """The records in a file: one assembled record, a JSON list of them, or JSON lines such as a
    saved protocol log (``record``/``rl``/``record_end`` lines are assembled, others skipped)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read(bounded.MAX_RECORD_BYTES + 1)
    if len(text) > bounded.MAX_RECORD_BYTES:
        raise ExportError("%s is larger than %d bytes: no record is" % (path,
                                                                       bounded.MAX_RECORD_BYTES))
    try:
        data = bounded.loads(text, bounded.MAX_RECORD_BYTES)
        items = data if isinstance(data, list) else [data]
    except ValueError:
        items = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    items.append(bounded.loads(line, bounded.MAX_RECORD_BYTES))
                except ValueError as exc:
                    raise ExportError("%s line %d is not a JSON line this reads: %s"
                                      % (path, n, exc))
    records = [r for r in items if isinstance(r, dict) and r.get("format") == FORMAT
               and "t" not in r]
    records += assemble(items)
    if not records:
        raise ExportError("%s holds no game record (%s)" % (path, FORMAT))
    return records


class Keyring:
    """Board keys for checking records: the director's master secret (every board's key is
    derived from it), explicit keys per board, the open key of unprovisioned boards, and boards'
    public keys (``public``), which check a signed record without any secret."""

    def __init__(self, master=None, keys=None, public=None):
        self.master = master
        self.keys = dict(keys or {})
        self.public = dict(public or {})

    @classmethod
    def from_file(cls, path):
        """A director's key file (``director init`` writes it): {"master": hex} and/or
        {"boards": {id: hex}}; or a file of public keys (``director public`` writes it):
        {"public": {id: hex}}."""
        try:
            with open(path, encoding="utf-8") as f:
                data = bounded.obj(f.read(bounded.MAX_BYTES + 1))
            master = bytes.fromhex(data["master"]) if data.get("master") else None
            keys = dict((b, bytes.fromhex(k)) for b, k in (data.get("boards") or {}).items())
            public = dict((b, bytes.fromhex(k)) for b, k in (data.get("public") or {}).items())
            if any(len(k) != 32 for k in list(keys.values()) + list(public.values())) \
                    or (master is not None and len(master) != 32):
                raise ValueError("a key is 32 bytes (64 hex digits)")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ExportError("cannot read the key file %s: %s" % (path, exc))
        return cls(master, keys, public)

    def knows(self, board):
        """Whether this keyring holds a key of ``board`` (then its records must carry it)."""
        return self.master is not None or board in self.keys or board in self.public

    def public_for(self, board, kid=None):
        """The Ed25519 public key of ``board`` (32 bytes): given, or derived from its key (of id
        ``kid`` when given), or None."""
        if board in self.public:
            return self.public[board]
        key = self.key_for(board, kid) if kid is not None else (
            self.keys.get(board) or (derive_key(self.master, board) if self.master else None))
        if key is None or key == OPEN_KEY:
            return None
        return public_key(board, key)

    def key_for(self, board, kid):
        """The key whose id is ``kid`` for ``board``, or None."""
        cands = []
        if board in self.keys:
            cands.append(self.keys[board])
        if self.master is not None:
            cands.append(derive_key(self.master, board))
        cands.append(OPEN_KEY)
        for k in cands:
            if key_id(k) == kid:
                return k
        return None


def public_key(board, key):
    """The Ed25519 public key the board ``board`` signs with when its key is ``key``."""
    from firmware.board import ed25519
    return ed25519.public_key(signer.sign_seed(Mac(key), board))


def _verify(pub, sig, msg):
    """Ed25519's check: the ``cryptography`` package's where it is installed (the ``verify``
    extra), else the pure-Python one (``host_tools.records.ed25519_check``)."""
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:
        from host_tools.records import ed25519_check
        return ed25519_check.verify(pub, sig, msg)
    try:
        Ed25519PublicKey.from_public_bytes(pub).verify(sig, msg)
    except (InvalidSignature, ValueError):
        return False
    return True


def check_signature(record, pub):
    """ExportError unless the record's ``sig`` is the board's Ed25519 signature (public key
    ``pub``) over its lines (``signer.signed_text``)."""
    sig = record.get("sig")
    try:
        raw = bytes.fromhex(sig) if isinstance(sig, str) else b""
    except ValueError:
        raw = b""
    if len(raw) != 64:
        raise ExportError("the record's signature is missing or not 64 bytes of hex")
    h = hashlib.sha256()
    for line in record["lines"]:
        h.update(line.encode("utf-8", "surrogatepass"))
        h.update(b"\n")
    text = signer.signed_text(record["board"], record["serial"], len(record["lines"]),
                              h.hexdigest())
    if not _verify(pub, raw, text.encode()):
        raise ExportError("the board's signature does not hold for these %d lines: the record "
                          "was changed, cut or padded, or another board made it"
                          % len(record["lines"]))


def default_keyring():
    """The keyring named by $NARDY_KEYS (a director's key file), else the open key only."""
    path = os.environ.get("NARDY_KEYS")
    return Keyring.from_file(path) if path else Keyring()


# -- verification ---------------------------------------------------------------------------------
class Verified:
    """A record that held: ``events`` (dicts, in order), ``header``, ``authenticated`` (sealed
    with a provisioned key, not the open one), ``signed`` (its Ed25519 signature held), ``locked``, ``director`` (lines the director
    signed: [n, text]), ``resets``, ``notes`` (warnings for the reader)."""

    def __init__(self):
        self.events = []
        self.header = None
        self.authenticated = False
        self.locked = False
        self.director = []
        self.resets = 0
        self.notes = []
        self.signed = False


def _str(v, what):
    if not isinstance(v, str):
        raise ExportError("the record's %s is missing or not text" % what)
    return v


def parse_line(line, where=None):
    """A line's event (a dict with an int ``n`` and a known kind) and its text, without its seal
    checked; ExportError for anything else."""
    if not isinstance(line, str) or len(line) > MAX_LINE or len(line) < 34 or line[-33] != "|":
        raise ExportError("not a sealed line", where)
    text = line[:-33]
    try:
        ev = bounded.loads(text)
    except ValueError as exc:
        raise ExportError("a sealed line that is not JSON (%s)" % exc, where)
    n = ev.get("n") if isinstance(ev, dict) else None
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ExportError("a sealed line without its index n", where)
    if ev.get("k") not in rec.KINDS:
        raise ExportError("unknown event kind %r" % (ev.get("k"),), where)
    return ev


def line_mac(keyring, board, kid, serial):
    """The ``Mac`` and seal prefix that check game ``serial`` of ``board`` sealed by key ``kid``;
    ExportError when the keyring has no such key."""
    key = keyring.key_for(board, kid)
    if key is None:
        raise ExportError("no key for board %s (key %s): give the director's key file "
                          "(--keys FILE or $NARDY_KEYS)" % (board, kid))
    return Mac(key), "%s|%d|" % (board, serial), key != OPEN_KEY


def check_line(mac, prefix, line, where=None):
    """One sealed line ``<json>|<seal>`` of a game: its event (a dict with an int ``n`` and a
    known kind), or ExportError. ``mac`` and ``prefix`` come from ``line_mac``; ``where`` is the
    line's place for the error (its index in a record). The tournament station checks each line
    this way as it arrives, ``verify`` every line of a record."""
    if not isinstance(line, str) or len(line) > MAX_LINE or len(line) < 34 or line[-33] != "|":
        raise ExportError("not a sealed line", where)
    if not equal(mac.hex(prefix, line[:-33]), line[-32:]):
        raise ExportError("its seal is not the board's: the line was changed, or comes from "
                          "another game or board", where)
    return parse_line(line, where)


def verify(record, keyring=None, partial=False):
    """Check a record as described in the module docstring; a ``Verified``, or ExportError."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ExportError("not a %s record" % FORMAT)
    keyring = keyring or default_keyring()
    board = _str(record.get("board"), "board id")
    kid = _str(record.get("key"), "key id")
    serial = record.get("serial")
    if not isinstance(serial, int) or isinstance(serial, bool) or serial < 1:
        raise ExportError("the record's game serial is missing or not a number")
    lines = record.get("lines")
    if not isinstance(lines, list) or not lines:
        raise ExportError("the record has no lines")
    out = Verified()
    pub = None
    if keyring.key_for(board, kid) is None and keyring.public.get(board) is not None:
        # only the board's public key: the signature over all the lines stands for their seals
        pub = keyring.public[board]
        if record.get("sig") is None:
            raise ExportError("the record is not signed (%s): checking it needs the director's "
                              "key file" % (record.get("unsigned") or "a game in progress, part "
                                            "of one, or an older board"))
        if record.get("lines_n") != len(lines):
            raise ExportError("the board's count does not cover these %d lines" % len(lines))
        check_signature(record, pub)
        mac = prefix = None
        out.authenticated = True
        out.signed = True
        out.notes.append("checked with board %s's public key: its signature holds" % board)
    else:
        mac, prefix, out.authenticated = line_mac(keyring, board, kid, serial)
    if not out.authenticated and keyring.knows(board):
        raise ExportError("sealed with the open key, but board %s has a key of the director's: "
                          "this record is not the board's (to read an unprovisioned board's "
                          "record, export it without the director's keys)" % board)
    if not out.authenticated:
        out.notes.append("board %s has no key of its own: its record proves nothing about who "
                         "wrote it (provision the board for tournament play)" % board)
    for i, line in enumerate(lines):
        ev = parse_line(line, i) if mac is None else check_line(mac, prefix, line, i)
        if ev.get("n") != i:
            lost = record.get("lost")
            if lost and isinstance(lost, list):
                raise ExportError("the board lost lines of this game on its flash (%s): the "
                                  "record is incomplete" % json.dumps(lost), i)
            raise ExportError("line %s stands where line %d must: lines are missing, moved or "
                              "copied" % (ev.get("n"), i), i)
        out.events.append(ev)
    n = len(lines)
    if mac is not None:
        tag = record.get("tag")
        if tag is None:
            raise ExportError("the record has no end: the board's export was cut short")
        want = mac.hex("export|", board, "|", str(serial), "|", str(n), "|", lines[-1][-32:])
        if record.get("lines_n") != n or not isinstance(tag, str) or not equal(tag, want):
            raise ExportError("the board's tag does not cover these %d lines: the record was "
                              "cut short or padded" % n)
        if record.get("sig") is not None and out.authenticated:
            check_signature(record, keyring.public_for(board, kid))
            out.signed = True
    _check_header(out, board, serial)
    _check_authority(out)
    if out.events[-1].get("k") != rec.END and not partial:
        raise ExportError("the game is not finished on this record (it ends at line %d); "
                          "--partial writes it as it stands" % (n - 1))
    return out


def _check_header(out, board, serial):
    h = out.events[0]
    if h.get("k") != rec.GAME:
        raise ExportError("the record does not start with a game header", 0)
    if h.get("board") != board or h.get("serial") != serial:
        raise ExportError("the header names another board or game", 0)
    out.header = h
    for i, ev in enumerate(out.events[1:], 1):
        if ev.get("k") == rec.GAME:
            raise ExportError("a second game header inside one game", i)
        if ev.get("k") == rec.END and i != len(out.events) - 1:
            raise ExportError("lines after the game's end", i)


def _check_authority(out):
    """A game that claims the tournament lock must have kept it."""
    locked = bool(out.header.get("locked"))
    claimed = locked
    for i, ev in enumerate(out.events):
        k = ev.get("k")
        by = ev.get("by")
        if by not in rec.SOURCES:
            raise ExportError("who caused this line is not said (by=%r)" % (by,), i)
        if by == rec.DIRECTOR:
            out.director.append([i, _describe(ev)])
        if k == rec.LOCK:
            if by != rec.DIRECTOR:
                raise ExportError("a lock not set by the director", i)
            locked = claimed = True
        elif k == rec.UNLOCK:
            if by != rec.DIRECTOR:
                raise ExportError("a lock lifted without the director", i)
            locked = False
        elif k == rec.RESET:
            out.resets += 1
        elif locked and by == rec.HOST and k in rec.CHANGES:
            raise ExportError("the record claims the tournament lock, but a bare host command "
                              "changed the game (%s)" % _describe(ev), i)
        elif locked and k == rec.COMMIT:
            raise ExportError("the dice were committed again during a locked game (the board "
                              "lost its seed): the game's dice cannot be trusted", i)
        elif locked and k == rec.RECOVER:
            raise ExportError("the board lost lines of this locked game to flash damage", i)
    out.locked = claimed
    if out.resets:
        out.notes.append("the board restarted %d time(s) during the game (power cuts or "
                         "crashes); the clock was charged each time" % out.resets)
    for i, what in out.director:
        out.notes.append("line %d: the director: %s" % (i, what))


def _describe(ev):
    """A record line in a few words, for notes."""
    k = ev.get("k")
    fields = " ".join("%s=%s" % (f, json.dumps(v)) for f, v in sorted(ev.items())
                      if f not in ("k", "n", "by"))
    return ("%s %s" % (k, fields)).strip()


def check_dice(events):
    """The fair dice (firmware/board/fairdice.py): ExportError when the revealed seed does not
    match the commitment made before the game or an electronic throw is not the seed's; else a
    note on what cannot be checked (None when everything was)."""
    commit = events[0].get("dice_commit") if events else None
    throws = []
    unchecked = 0
    reveal = None
    mix = b""
    for n, ev in enumerate(events):
        k = ev.get("k")
        if k == rec.COMMIT:                 # a new seed (the board lost the one before)
            unchecked += len(throws)
            commit = ev.get("dice_commit")
            throws = []
            mix = b""
        elif k == rec.MIX:                  # the host's bytes, mixed in before the first throw
            if throws:
                raise ExportError("bytes mixed into the dice after they were thrown", n)
            try:
                mix = bytes.fromhex(ev.get("mix", ""))
            except (ValueError, TypeError):
                raise ExportError("the dice mix is not hex", n)
        elif k == rec.REVEAL:
            reveal = (ev.get("seed"), n)
        elif "i" in ev:
            d = ev.get("dice") if "dice" in ev else [ev.get("die")]
            if not isinstance(ev["i"], int) or not isinstance(d, list):
                raise ExportError("a throw with a malformed dice index", n)
            throws.append((ev["i"], d))
    if commit is None:
        return None
    if reveal is None:
        return "the dice can be checked once the game is over (the seed is revealed then)"
    why = fairdice.verify(commit, reveal[0], throws, mix)
    if why:
        raise ExportError("the dice fail their commitment: " + why, reveal[1])
    if unchecked:
        return "%d throw(s) came from a seed the board lost: not checkable" % unchecked
    return None


# -- replay ---------------------------------------------------------------------------------------
def _setting_ok(key, value):
    # value is one the board's setting ``key`` takes (bools are not ints here)
    return any(type(value) is type(v) and value == v for v in rec.SETTINGS[key])


class _Plays(GameReplay):
    """Replays a verified record strictly, collecting the plays for gnubg's formats."""

    def __init__(self):
        GameReplay.__init__(self)
        self.actions = []

    def refuse(self, ev, why):
        raise ExportError("does not replay: %s" % why, ev.get("n"))

    def apply(self, ev):
        k = ev.get("k")
        if k == rec.POSITION:
            raise ExportError("the game went on from an edited position, which gnubg's match "
                              "formats cannot express", ev.get("n"))
        side = self.game.pos.turn if self.game is not None else 0
        GameReplay.apply(self, ev)
        if k == rec.END and (ev.get("how") != self.game.result
                           or ev.get("score") != list(self.match.score)):
            raise ExportError("the end says %s with the score %s, the replay %s with %s" % (
                ev.get("how"), ev.get("score"), self.game.result, list(self.match.score)),
                ev.get("n"))
        if k == rec.CUBE:
            act = ev["act"]
            self.actions.append((side, "double", self.game.cube * 2) if act == "double"
                                else (1 - side, act))
        elif k == rec.PASS:
            self.actions.append((side, "pass"))

    def turn(self, ev):
        game = self.game
        if "condoned" in ev:
            raise ExportError("an illegal play the opponent condoned (%s) cannot be written in "
                              "gnubg's match formats" % ev["condoned"], ev.get("n"))
        if game.phase == gm.ROLL and "dice" in ev:
            game.roll(ev["dice"][0], ev["dice"][1])
        dice = game.dice
        GameReplay.turn(self, ev)
        self.check_turn(ev)
        steps = [(st[0], st[1], st[2], st[3]) for st in ev["s"]]
        self.actions.append((ev["side"], "roll", dice, steps))


    def begin(self, ev):
        GameReplay.begin(self, ev)
        if ev.get("rules") != self.rules.describe():
            raise ExportError("the header's rules %r are not its variant's and options' (%r)" % (
                ev.get("rules"), self.rules.describe()), ev.get("n"))
        if not all(_setting_ok(key, ev.get(key)) for key in rec.SETTINGS):
            raise ExportError("the header's settings are not ones the board has", ev.get("n"))

    def other(self, ev):
        if ev.get("k") == rec.SET:
            named = [key for key in rec.SETTINGS if key in ev]
            if len(named) != 1 or not _setting_ok(named[0], ev[named[0]]):
                raise ExportError("a setting line that sets no one known setting to a known "
                                  "value", ev.get("n"))

    def check_turn(self, ev):
        # the turn line's other fields must say what the replay says: the board writes them
        # from the same game, so a difference is a damaged or forged line
        game = self.game
        hist = game.history[-1]
        if ev.get("dice") != list(hist["dice"] or []) or ev.get("kind") != hist["kind"]:
            raise ExportError("the turn says dice %r (%r), the replay %r (%r)" % (
                ev.get("dice"), ev.get("kind"), hist["dice"], hist["kind"]), ev.get("n"))
        cube = [game.cube, game.cube_owner] if game.cube > 1 else None
        if ev.get("cube") != cube:
            raise ExportError("the turn says the cube is %r, the replay %r" % (
                ev.get("cube"), cube), ev.get("n"))
        pos = Position(bytearray(game.pos.board), ev["side"]).encode()
        if ev.get("pos") != pos:
            raise ExportError("the turn says the position after it is %r, the replay %r" % (
                ev.get("pos"), pos), ev.get("n"))
        ms = ev.get("ms")
        if type(ms) is not int or not 0 <= ms < 10 ** 9:
            raise ExportError("the turn's time taken is %r, not milliseconds" % (ms,), ev.get("n"))


def replay_record(record, keyring=None, partial=False, verified=None):
    """Verify and replay one record's game through the rules core. Returns a dict: ``number``
    (game in the match, from 1), ``score`` (before it), ``match_to``, ``crawford``, ``rules``,
    ``actions`` (in order: ``(side, "roll", (d1, d2), steps in pips)``, ``(side, "double",
    value)``, ``(side, "take")``, ``(side, "drop")``, ``(side, "pass")``: closed out, no throw), ``winner`` (-1 while unfinished),
    ``points``, ``how``, ``game``, ``verified``, ``board``, ``serial``, ``match``, ``prev``,
    ``head``."""
    v = verified or verify(record, keyring, partial)
    plays = _Plays()
    for ev in v.events:
        try:
            plays.event(ev)
        except ExportError:
            raise
        except (gm.GameError, ValueError, KeyError, TypeError, IndexError) as exc:
            raise ExportError("does not replay: %s" % exc, ev.get("n"))
    game = plays.game
    h = v.header
    out = {"number": int(h.get("games", 0)) + 1, "score": list(h.get("score") or [0, 0]),
           "match_to": int(h.get("match_to") or 0), "crawford": bool(h.get("crawford")),
           "rules": plays.rules, "actions": plays.actions, "winner": -1, "points": 0, "how": "",
           "game": game, "verified": v, "board": record.get("board"),
           "serial": record.get("serial"), "match": h.get("match"), "prev": h.get("prev", ""),
           "head": record["lines"][-1][-32:], "ended": plays.ended}
    if game.phase == gm.OVER:
        out["winner"], out["points"], out["how"] = game.winner, game.points, game.result
    return out


def check_match(games):
    """Games of one match, in order: the same board, match and rules; numbered one after another,
    each chained to the one before (a deleted or duplicated game is refused)."""
    games.sort(key=lambda g: g["number"])
    for a, b in zip(games, games[1:]):
        if a["rules"].describe() != b["rules"].describe() or a["match_to"] != b["match_to"]:
            raise ExportError("the records are not of one match (rules or match length differ)")
        if a["number"] == b["number"]:
            raise ExportError("two records of game %d" % a["number"])
        if (a["board"], a["match"]) != (b["board"], b["match"]):
            raise ExportError("the records are not of one match (another board or match)")
        if b["number"] != a["number"] + 1:
            raise ExportError("game %d of the match is missing" % (a["number"] + 1))
        if b["prev"] != a["head"]:
            raise ExportError("game %d does not follow game %d of this match (a game was "
                              "deleted, replaced or replayed)" % (b["number"], a["number"]))
        if a["winner"] < 0:
            raise ExportError("game %d did not end before game %d" % (a["number"], b["number"]))


# -- .mat ---------------------------------------------------------------------------------------------
def _plain(steps):
    """A play as gnubg's .mat export writes it: one from/to pair per die, 25 bar, 0 off, * hits."""
    return " ".join("%d/%d%s" % (s, t, "*" if hit else "") for s, t, die, hit in steps)


def _action_text(act):
    if act[1] == "roll":
        d = act[2]
        return ("%d%d: %s" % (d[0], d[1], _plain(act[3]))).rstrip()
    if act[1] == "pass":
        return ""                 # closed out, no throw: an empty cell (gnubg moves on)
    if act[1] == "double":
        return " Doubles => %d" % act[2]
    return " Takes" if act[1] == "take" else " Drops"


def check_compatible(rules):
    """Warnings for exporting this variant to gnubg; ExportError when it cannot be."""
    if not getattr(rules, "gnubg_compatible", False):
        raise ExportError("%s (%s) cannot be written for GNU Backgammon: its rules are not "
                          "backgammon's (gnubg reads backgammon, short nardy with "
                          "scoring=backgammon, and takhteh)" % (rules.title, rules.describe()))
    warn = []
    if rules.name == "persian":
        warn.append("takhteh scores a mars 2 where gnubg scores a backgammon 3: gnubg's match "
                    "score may differ from the board's")
        if rules.option("hit_lift_priority") == "lock_first":
            warn.append("hit_lift_priority=lock_first may play fewer dice than backgammon "
                        "requires: gnubg may reject such a play")
    return warn


GNUBG_MAX_CUBE = 4096      # gnubg's MAX_CUBE: it reads a higher cube as 4096


def check_cube(game):
    """The board's cube has no cap (rules.md: no limit); gnubg's stops at 4096. ExportError
    when a game's cube went past it (gnubg would score it otherwise); a note when a match game's
    cube reached 256 (gnubg 1.07 was seen to crash importing such games)."""
    top = 1
    for act in game["actions"]:
        if act[1] == "double" and act[2] > top:
            top = act[2]
    if top > GNUBG_MAX_CUBE:
        raise ExportError("the cube reached %d: GNU Backgammon's cube stops at %d, so gnubg would "
                          "score this game otherwise (the board's record and its own replay "
                          "have no limit)" % (top, GNUBG_MAX_CUBE))
    if top >= 256 and game["match_to"] > 1:
        return ["the cube reached %d in a %d-point match: gnubg 1.07 was seen to crash importing "
                "such a game" % (top, game["match_to"])]
    return []


def write_mat(games, names=NAMES):
    """Jellyfish/gnubg .mat text of replayed games (``replay_record`` results, in order)."""
    lines = [" %d point match" % games[0]["match_to"], ""]
    for g in games:
        lines.append(" Game %d" % g["number"])
        left = "%s : %d" % (names[0], g["score"][0])
        lines.append(" %-31s%s : %d" % (left, names[1], g["score"][1]))
        acts = g["actions"]
        cells = []
        if acts and acts[0][0] == 1:
            cells.append("")
        for a in acts:
            if a[0] != len(cells) % 2:
                raise ExportError("game %d: side %d acts twice in a row, which .mat cannot "
                                  "write" % (g["number"], a[0]))
            cells.append(_action_text(a))
        for n in range(0, len(cells), 2):
            row = "%3d) %-28s" % (n // 2 + 1, cells[n])
            if n + 1 < len(cells):
                row += " " + cells[n + 1]
            lines.append(row.rstrip())
        if g["winner"] >= 0:
            pts = g["points"]
            total = g["score"][g["winner"]] + pts
            tail = " and the match" if g["match_to"] and total >= g["match_to"] else ""
            pad = " " * 6 if g["winner"] == 0 else " " * 34
            lines.append("%sWins %d point%s%s" % (pad, pts, "" if pts == 1 else "s", tail))
        lines.append("")
    return "\n".join(lines) + "\n"


# -- SGF ----------------------------------------------------------------------------------------------
def _letter(side, pip):
    """SGF point letter (rules.md §8.5): White's pip p is ``a`` + p - 1, Black's the mirror; y bar, z off."""
    if pip == 25:
        return "y"
    if pip == 0:
        return "z"
    return chr(ord("x") - pip + 1) if side else chr(ord("a") + pip - 1)


def _sgf_escape(text):
    return text.replace("\\", "\\\\").replace("]", "\\]")


def write_sgf(games, names=NAMES):
    """SGF (GM[6]) text of replayed games: one game tree per game, as gnubg writes them."""
    out = []
    for g in games:
        props = ["FF[4]GM[6]CA[UTF-8]AP[nardy-board:1]",
                 "MI[length:%d][game:%d][ws:%d][bs:%d]" % (g["match_to"], g["number"] - 1,
                                                          g["score"][0], g["score"][1]),
                 "PW[%s]PB[%s]" % (_sgf_escape(names[0]), _sgf_escape(names[1]))]
        if g["match_to"]:
            props.append("RU[Crawford%s]" % (":CrawfordGame" if g["crawford"] else ""))
        if g["winner"] >= 0:
            props.append("RE[%s+%d%s]" % ("WB"[g["winner"]], g["points"],
                                          "R" if g["how"] == "resign" else ""))
        nodes = []
        for a in g["actions"]:
            who = "WB"[a[0]]
            if a[1] == "pass":
                continue          # closed out, no throw: no node (gnubg gives the roll on)
            if a[1] == "roll":
                pairs = "".join(_letter(a[0], s) + _letter(a[0], t)
                                for s, t, die, hit in a[3])
                nodes.append(";%s[%d%d%s]" % (who, a[2][0], a[2][1], pairs))
            else:
                nodes.append(";%s[%s]" % (who, a[1]))
        out.append("(;%s\n%s)\n" % ("".join(props), "\n".join(nodes)))
    return "".join(out)


# -- the whole job ----------------------------------------------------------------------------------
def export(records, fmt="mat", names=NAMES, keyring=None, partial=False):
    """Text of the records in ``fmt`` (mat or sgf) and the notes; ExportError on a tampered,
    incomplete, unreplayable or non-gnubg record."""
    notes = []
    games = []
    seen = set()
    for n, record in enumerate(records):
        where = "record %d: " % (n + 1) if len(records) > 1 else ""
        try:
            v = verify(record, keyring, partial)
            key = (record.get("board"), record.get("serial"))
            if key in seen:
                raise ExportError("the same game (board %s, serial %s) twice" % key)
            seen.add(key)
            rules = GameReplay().make_rules(v.header)
            notes += check_compatible(rules)
            note = check_dice(v.events)
            if note:
                notes.append(where + note)
            notes += [where + x for x in v.notes]
            game = replay_record(record, keyring, partial, v)
            notes += check_cube(game)
            games.append(game)
        except ExportError as exc:
            raise ExportError(where + exc.why, exc.event)
        except (ValueError, KeyError, TypeError) as exc:
            raise ExportError(where + "bad game header: %s" % exc, 0)
    check_match(games)
    uniq = []
    for w in notes:
        if w not in uniq:
            uniq.append(w)
    text = write_sgf(games, names) if fmt == "sgf" else write_mat(games, names)
    return text, uniq
