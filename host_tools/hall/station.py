"""The director's station: every board's lines from the hall, each verified as it arrives, games stored, gaps asked for again.

The station logs in to the broker as ``station`` and subscribes to every board's ``line``,
``tag``, ``status``, ``ev`` and ``conn`` (docs/hall.md). Each journal line is checked on arrival
with ``host_tools.records.export.check_line`` under the board's key (derived from the director's secret;
a line under the public open key is refused: anyone could have sealed it): a line whose seal is not the
board's, not of that game, or not a journal line is rejected and reported; a line whose number
``n`` the station already holds is a duplicate (counted, never stored twice); a different line
under a number already held is reported as a conflict. Lines are kept by (board, game serial,
n) in the ``Store``. A game whose lines stop short of what the board shows (a gap before a line
that came, a status whose journal head the station lacks, the board or the station connecting
again) is asked for again with ``want`` from the first line missing; the board answers with
those lines and its tag over the game. When a game's last line (``end``, or ``abandon``) and a
tag covering every line are in, the whole record is verified and replayed (``verify``,
``replay_record``, ``check_dice``) and the result stored. The broker's refusals (a board
publishing on another board's topic) are reported too (``report``).

The station's state is read by the pages (``host_tools.hall.web``) through ``snapshot``,
``board_view`` and the listeners (``subscribe``), and published for spectators on ``view``
(retained), delayed by ``delay`` moves.
"""

import hashlib
import json
import queue
import threading
import time

from firmware.board import hall_link
from firmware.board.identity import OPEN_KEY, Mac, derive_key, equal, key_id
from host_tools.records.export import (ExportError, FORMAT, check_dice, check_line, replay_record,
                               verify)
from host_tools import bounded
from host_tools.bounded import BOOL, DICT, INT, LIST, STR, Refused
from host_tools.hall import mqtt, views
from host_tools.hall.room import STATION
from firmware.board import record as rec

WANT_AGAIN_S = 1.0       # a want not answered is sent again after this long
CHECK_S = 0.25           # the station's clock: flush, wants, connection states
SUBSCRIBED = (hall_link.LINE, hall_link.TAG, hall_link.STATUS, hall_link.EV, hall_link.CONN)
ENDINGS = (rec.END, rec.ABANDON)
# events the director must see until cleared (a mismatch or a flag shows while it lasts: the
# board's status says it)
ALERTING = ("time_out", "hw_fault", "sensor_fault", "storage_full", "journal_lost", "fatal")
EVENTS_KEPT = 40
LISTENER_BACKLOG = 2000
REJECTED_KEPT = 10000    # refused messages remembered, so one delivered twice is reported once
SERIAL_MAX = 2 ** 31 - 1
LINES_MAX = 1000000      # a game's lines: far above any game (a 300-turn game has ~700)
SERIALS_AHEAD = 64       # a board's new game this far past the last one the station knows, at most
# What each kind of message may hold (bounded.fields): a field of another type refuses the whole
# message, reported, so nothing of the wrong type reaches the pages or the store.
SCHEMA = {
    hall_link.LINE: {"s": (INT, 1, SERIAL_MAX), "l": STR},
    hall_link.TAG: {"serial": (INT, 1, SERIAL_MAX), "lines": (INT, 0, LINES_MAX), "head": STR,
                    "tag": STR, "lost": LIST, "damaged": (INT, 0, LINES_MAX), "ended": BOOL},
    hall_link.STATUS: {"serial": (INT, 1, SERIAL_MAX), "seal": STR, "variant": STR, "phase": STR,
                       "turn": (INT, -1, 1), "dice": LIST, "position": STR, "score": LIST,
                       "match_to": (INT, 0, 999), "game": (INT, 0, 99999), "cube": (INT, 1, 2 ** 16),
                       "clock": DICT, "board": STR, "locked": BOOL, "mode": STR, "options": DICT},
    hall_link.EV: {"ev": STR, "t": STR, "games": LIST},
    hall_link.CONN: {"on": BOOL, "via": STR, "why": STR, "board": STR},
}


class Game:
    """One game of one board as the station holds it: ``lines`` and ``events`` by n, ``next``
    (lines 0..next-1 are all in), the key that sealed it, the board's latest ``tag``, ``state``
    (live, complete, abandoned, broken), ``result``, ``notes``."""

    def __init__(self, board, serial, round_):
        self.board = board
        self.serial = serial
        self.round = round_
        self.lines = {}
        self.events = {}
        self.next = 0
        self.top = -1                   # the highest n held
        self.mac = None
        self.kid = None
        self.authenticated = False
        self.tag = None
        self.state = "live"
        self.result = None
        self.notes = []
        self.wanted = (None, 0.0)       # (n, when) of the last want
        self.end_n = None
        self.header = None
        self.turns = []                 # the turn events in order (contiguous lines only)
        self.moves = []                 # the same as the pages show them (views.move)
        self.seals = {}                 # seal -> n
        self.behind = None              # (journal head the board's status named, when)
        self.asked = 0                  # wants sent without progress (they slow down)

    @property
    def prefix(self):
        return "%s|%d|" % (self.board, self.serial)

    def record(self):
        """The record as the board's export would give it (host_tools.records.export's form)."""
        lines = [self.lines[n] for n in range(self.next)]
        t = self.tag or {}
        return {"format": FORMAT, "board": self.board, "serial": self.serial, "key": self.kid,
                "open": not self.authenticated, "lines": lines, "lines_n": t.get("lines"),
                "head": t.get("head"), "tag": t.get("tag"), "lost": t.get("lost") or [],
                "ended": bool(t.get("ended")),
                "events": [self.events[n] for n in range(self.next)]}

    def done(self):
        return self.state != "live"


class BoardState:
    """What the station knows of one board: its latest status and connection, its games, the
    last events, what needs the director."""

    def __init__(self, board):
        self.id = board
        self.status = None
        self.status_at = 0.0
        self.conn = None
        self.seen = 0.0
        self.games = {}
        self.events = []
        self.alerts = []        # [(when, why)] the director should look at
        self.rejected = 0
        self.kid = None
        self.view_key = None
        self.rev = 0            # the station's change count when this board last changed


class Station:
    """The director's station for a room. ``store``: a ``Store``; ``delay``: moves the
    spectators' view is held back; ``round``: the round new games belong to."""

    def __init__(self, room, store, delay=0, client=True):
        self.room = room
        self.store = store
        self.delay = delay
        self.lock = threading.RLock()
        self.boards = {}
        self.round = store.setting("round", 1)
        self.counts = {"lines": 0, "accepted": 0, "duplicates": 0, "rejected": 0, "conflicts": 0,
                       "wants": 0, "games_complete": 0, "games_broken": 0, "messages": 0}
        self.listeners = []
        # every change of a board gets a larger number, past those of an earlier run of the
        # station: a page keeps the newest of what its stream and its snapshot bring
        self._rev = int(time.time() * 1000)
        self._rejected_seen = {}        # digests of messages refused (insertion-ordered)
        self.why = {}                   # wants sent, by what made the station ask
        self.connected = False          # logged in and subscribed: nothing a board sends is missed
        self._subscription = None       # the message id of the subscription awaiting its SUBACK
        self._macs = {}
        self._stop = threading.Event()
        self._client = None
        self._thread = None
        self.use_client = client
        self._load()

    # -- life ------------------------------------------------------------------------------------
    def start(self):
        if self.use_client:
            # a persistent session: what comes while the station reconnects waits for it
            # kept before its network thread starts: the callbacks publish through it
            self._client = mqtt.connect(self.room, STATION, on_connect=self._connected,
                                        on_message=self._message,
                                        on_disconnect=self._disconnected, clean=False,
                                        on_subscribed=self._subscribed, start=False)
            self._client.loop_start()
        self._thread = threading.Thread(target=self._clock, name="station-clock", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)
        if self._client is not None:
            mqtt.close(self._client)
        self.store.flush()

    def _load(self):
        """The games the database holds, read back (and checked again) after a restart."""
        for b in self.store.boards():
            st = self._board(b["id"])
            st.status = b["status"]
            st.conn = b["conn"]
            st.seen = b["seen"] or 0.0
        for g in self.store.games():
            st = self._board(g["board"])
            game = Game(g["board"], g["serial"], g["round"])
            game.state = g["state"]
            game.tag = g["tag"]
            game.result = g["result"]
            game.notes = g["notes"]
            st.games[game.serial] = game
        for board, serial in self.store.line_games():     # games still going on
            st = self._board(board)
            if serial not in st.games:
                st.games[serial] = Game(board, serial, self.round)
        for st in self.boards.values():
            for game in st.games.values():
                for n, line in sorted(self.store.lines(st.id, game.serial).items()):
                    try:
                        self._take_line(st, game, line, time.time(), stored=True)
                    except ExportError:
                        pass

    def _connected(self, client):
        with self.lock:
            # connected only once the broker has acknowledged the subscriptions: until then a
            # line a board publishes may reach a broker that does not yet route it here
            _rc, self._subscription = client.subscribe(
                [(hall_link.topic(self.room.name, "+", kind), 1) for kind in SUBSCRIBED])
            for st in self.boards.values():       # ask every board for what may have been lost
                for game in st.games.values():
                    if not game.done():
                        self._want(st, game, force=True, why='reconnect')
                self._publish_view(st)

    def _subscribed(self, client, mid):
        if mid == self._subscription:
            self.connected = True

    def _disconnected(self, client):
        self.connected = False

    # -- messages --------------------------------------------------------------------------------
    def _message(self, client, topic, payload):
        parts = topic.split("/")
        if len(parts) != 3 or parts[0] != self.room.name:
            return
        board, kind = parts[1], parts[2]
        now = time.time()
        with self.lock:
            self.counts["messages"] += 1
            if board not in self.room.boards:
                self.report(board, "unknown", "a message from a board the hall has not admitted",
                            topic)
                return
            st = self._board(board)
            st.seen = now
            try:
                msg = bounded.obj(payload)
                if kind in SCHEMA:
                    bounded.fields(msg, SCHEMA[kind], "a %s message" % kind)
                self._dispatch(st, kind, msg, now)
            except Refused as exc:
                self._reject(st, "a %s message refused: %s" % (kind, exc), repr(payload[:120]),
                             payload)
            except Exception as exc:      # a message the checks missed: reported, never fatal
                self.report(board, "error", "a %s message broke the station: %s: %s"
                            % (kind, type(exc).__name__, str(exc)[:200]), repr(payload[:120]))

    def _dispatch(self, st, kind, msg, now):
        if kind == hall_link.LINE:
            self.line(st, msg.get("s"), msg.get("l"), now)
        elif kind == hall_link.TAG:
            self.tag(st, msg, now)
        elif kind == hall_link.STATUS:
            self.status(st, msg, now)
        elif kind == hall_link.EV:
            self.event(st, msg, now)
        elif kind == hall_link.CONN:
            self.conn(st, msg, now)

    def line(self, st, serial, text, now):
        """A journal line of game ``serial`` from board ``st``."""
        self.counts["lines"] += 1
        if not isinstance(serial, int) or isinstance(serial, bool) or serial < 1 \
                or not isinstance(text, str):
            self._reject(st, "a line message without its game serial or line", repr(text)[:120],
                         repr((serial, text)))
            return
        game = st.games.get(serial)
        new = game is None
        if new:                         # a game the station knows once one of its lines holds
            self._ahead(st, serial)
            game = Game(st.id, serial, self.round)
        try:
            took = self._take_line(st, game, text, now)
        except ExportError as exc:
            self._reject(st, "game %d: %s" % (serial, exc.why), text[:160], "%d|%s" % (serial, text))
            return
        if new:
            game = self._game(st, serial, game)
        if took:
            self.counts["accepted"] += 1
            self._after_line(st, game)

    def _take_line(self, st, game, text, now, stored=False):
        """Check one line and keep it; True when it was new."""
        if game.mac is None:
            # only the board's hall key: the open key is public, so a line sealed with it could
            # come from anyone, and pinning a game to it would refuse the board's own lines
            key = derive_key(self.room.master, st.id)
            mac = self._mac(key)
            try:
                ev = check_line(mac, game.prefix, text)
            except ExportError as exc:
                if exc.why.startswith("its seal"):
                    try:
                        check_line(self._mac(OPEN_KEY), game.prefix, text)
                    except ExportError:
                        pass
                    else:
                        raise ExportError("sealed with the open key, which anyone has: the hall "
                                          "takes lines sealed with the board's key only "
                                          "(director provision)")
                raise
            game.mac = mac
            game.kid = key_id(key)
            game.authenticated = True
            st.kid = game.kid
        else:
            ev = check_line(game.mac, game.prefix, text)
        n = ev["n"]
        have = game.lines.get(n)
        if have is not None:
            if have == text:
                if not stored:
                    self.counts["duplicates"] += 1
                return False
            self.counts["conflicts"] += 1
            raise ExportError("line %d came twice with different contents: the board wrote "
                              "two lines under one number" % n)
        if game.end_n is not None and n > game.end_n:
            raise ExportError("a line after the game's end")
        game.lines[n] = text
        game.events[n] = ev
        game.top = max(game.top, n)
        game.seals[text[-32:]] = n
        if not stored:
            self.store.add_line(st.id, game.serial, n, text, now)
        if ev.get("k") in ENDINGS:
            game.end_n = n
        while game.next in game.lines:
            self._contiguous(st, game, game.events[game.next])
            game.next += 1
        return True

    def _contiguous(self, st, game, ev):
        k = ev.get("k")
        if k == rec.GAME:
            game.header = ev
        elif k == rec.TURN:
            game.turns.append(ev)
            game.moves.append(views.move(ev))

    def _after_line(self, st, game):
        if game.top >= game.next:
            self._want(st, game, why='gap')                  # a gap: ask from its first line
        elif game.end_n is not None and game.next == game.end_n + 1:
            self._finish(st, game)
        self._changed(st)

    def tag(self, st, msg, now):
        """The board's tag over a game's lines (the end of an export)."""
        serial = msg.get("serial")
        n = msg.get("lines")
        if not isinstance(serial, int) or not isinstance(n, int) or not isinstance(msg.get("tag"),
                                                                                   str):
            return
        if not self._tag_holds(st, serial, msg):
            self._reject(st, "game %d: a tag whose MAC is not the board's (forged, or of other "
                             "lines)" % serial, json.dumps(msg)[:160], json.dumps(msg))
            return
        game = self._game(st, serial)
        if game.tag is None or n >= game.tag.get("lines", -1):
            game.tag = {k: msg.get(k) for k in ("lines", "head", "tag", "lost", "damaged",
                                                "ended")}
        if game.next < n and not game.done():
            lost = msg.get("lost") or []
            if lost and all(any(a <= m <= b for a, b, _why in lost)
                            for m in range(game.next, n) if m not in game.lines):
                self._broken(st, game, "the board lost lines %s of game %d on its flash"
                             % (json.dumps(lost), serial))
                return
            self._want(st, game, why='tag-gap')
        elif game.end_n is not None and game.next == game.end_n + 1 and not game.done():
            self._finish(st, game)
        self._changed(st)

    def _tag_holds(self, st, serial, msg):
        """The tag is the board's MAC over (id, serial, lines, head), under the key that sealed
        the game's lines (or, before any line held, the board's key or the open key)."""
        game = st.games.get(serial)
        if game is not None and game.mac is not None:
            macs = [game.mac]
        else:
            macs = [self._mac(derive_key(self.room.master, st.id)), self._mac(OPEN_KEY)]
        head = msg.get("head")
        if not isinstance(head, str):
            return False
        return any(equal(mac.hex("export|", st.id, "|", str(serial), "|", str(msg["lines"]), "|",
                                 head), msg["tag"]) for mac in macs)

    def status(self, st, msg, now):
        st.status = msg
        st.status_at = now
        self.store.put_board(st.id, st.kid, msg, st.conn, now)
        serial = msg.get("serial")
        if isinstance(serial, int) and serial >= 1:
            game = self._game(st, serial)
            head = msg.get("seal")
            if head and head not in game.seals and not game.done():
                game.behind = (head, now)                 # checked by the clock after a while
        self._changed(st)

    def event(self, st, msg, now):
        name = msg.get("ev") or msg.get("t")
        if name == "games":                        # the games on the board's flash
            for g in msg.get("games") or []:
                s = g.get("serial") if isinstance(g, dict) else None
                if isinstance(s, int) and not isinstance(s, bool) and s >= 1 \
                        and s not in st.games:
                    self._want(st, self._game(st, s), why="listed")
            return
        st.events.append([now, msg])
        del st.events[:-EVENTS_KEPT]
        if name in ALERTING and msg.get("fault", True) and msg.get("zones", True):
            self._alert(st, "%s %s" % (name, json.dumps({k: v for k, v in msg.items()
                                                          if k not in ("t", "ev")})))
        self._changed(st)

    def conn(self, st, msg, now):
        st.conn = dict(msg, at=now)
        self.store.put_board(st.id, st.kid, st.status, st.conn, now)
        if msg.get("on"):
            for game in st.games.values():
                if not game.done():
                    self._want(st, game, force=True, why='conn')
        self._changed(st)

    def _ahead(self, st, serial):
        """Refused: a serial out of range, or too far past the board's last game known."""
        if not 1 <= serial <= SERIAL_MAX:
            raise Refused("game serial %r out of range" % (serial,))
        if st.games and serial > max(st.games) + SERIALS_AHEAD:
            raise Refused("game %d is more than %d past the board's last game (%d)"
                          % (serial, SERIALS_AHEAD, max(st.games)))

    def _game(self, st, serial, game=None):
        """Game ``serial`` of a board (``game``, or made when new), with the games between it and
        the games already known that the station never heard of (at most SERIALS_AHEAD of them,
        asked for from their first line)."""
        have = st.games.get(serial)
        if have is not None:
            return have
        self._ahead(st, serial)
        game = st.games[serial] = game or Game(st.id, serial, self.round)
        known = sorted(st.games)
        for s in range(max(known[0] + 1, known[-1] - SERIALS_AHEAD), known[-1]):
            if s not in st.games:
                st.games[s] = Game(st.id, s, self.round)
                self._want(st, st.games[s], why="unheard")
        return game

    # -- asking again ----------------------------------------------------------------------------
    def _want(self, st, game, force=False, why=""):
        now = time.time()
        n, at = game.wanted
        if n != game.next:
            game.asked = 0                        # progress since the last want
        wait = min(WANT_AGAIN_S * 2 ** min(game.asked, 5), 30.0)
        if not force and now - at < wait:
            return                                # asked a moment ago: the answer is coming
        game.asked += 1
        game.wanted = (game.next, now)
        self.counts["wants"] += 1
        self.why[why] = self.why.get(why, 0) + 1
        want = {"s": game.serial, "n": game.next}
        if game.top > game.next:
            # a gap: the lines up to the next one held (the live lines keep coming meanwhile)
            want["m"] = min(m for m in game.lines if m > game.next)
        if self._client is not None:
            self._client.publish(hall_link.topic(self.room.name, st.id, hall_link.WANT),
                                 json.dumps(want), qos=1)

    def _clock(self):
        while not self._stop.wait(CHECK_S):
            try:
                self._tick(time.time())
            except Exception as exc:          # reported; the clock goes on
                self.report("station", "error", "the station's clock: %s: %s"
                            % (type(exc).__name__, str(exc)[:200]))

    def _tick(self, now):
        with self.lock:
            for st in self.boards.values():
                if not (st.conn or {}).get("on", True):
                    continue
                for game in st.games.values():
                    if game.done():
                        continue
                    behind = game.behind
                    if behind is not None:
                        if behind[0] in game.seals:
                            game.behind = None
                        elif now - behind[1] > WANT_AGAIN_S:
                            self._want(st, game, why='behind')
                    if game.top >= game.next or \
                            (game.end_n is not None and game.next == game.end_n + 1):
                        self._want(st, game, why='clock')  # a gap, or a tag still missing
            self.store.flush()

    # -- the end of a game -------------------------------------------------------------------------
    def _finish(self, st, game):
        tag = game.tag
        if tag is None or tag.get("lines") != game.next:
            self._want(st, game, why='finish')                  # the board's tag over every line
            return
        record = game.record()
        try:
            v = verify(record, self.room.keyring, partial=game.events[game.end_n].get("k")
                       == rec.ABANDON)
            notes = list(v.notes)
            note = check_dice(v.events)
            if note:
                notes.append(note)
            r = replay_record(record, self.room.keyring, partial=True, verified=v)
        except ExportError as exc:
            self._broken(st, game, "game %d does not verify: %s" % (game.serial, exc))
            return
        game.notes = notes
        if game.events[game.end_n].get("k") == rec.ABANDON:
            game.state = "abandoned"
        else:
            game.state = "complete"
            self.counts["games_complete"] += 1
        h = v.header
        game.result = {"winner": r["winner"], "points": r["points"], "how": r["how"],
                       "score": game.events[game.end_n].get("score"), "variant": h.get("variant"),
                       "match": h.get("match"), "game": h.get("game"), "match_to": h.get("match_to"),
                       "turns": len(game.turns), "authenticated": v.authenticated}
        self._save_game(st, game)
        self._publish_view(st)

    def _broken(self, st, game, why):
        game.state = "broken"
        game.notes = [why]
        self.counts["games_broken"] += 1
        self._alert(st, why)
        self.report(st.id, "broken", why)
        self._save_game(st, game)

    def _save_game(self, st, game):
        self.store.put_game(st.id, game.serial, game.round, game.state, game.kid, game.tag,
                            game.result, game.notes, time.time())

    # -- reports and alerts ------------------------------------------------------------------------
    def _reject(self, st, why, detail="", message=None):
        """Refuse a message of board ``st`` and report it once: the same ``message`` again (a
        QoS 1 delivery repeated after the broker or the station lost its connection) is
        counted with the duplicates, not reported again."""
        if message is not None:
            key = hashlib.sha256(st.id.encode() + b"|" + (message if isinstance(message, bytes)
                                                          else message.encode())).digest()[:16]
            if key in self._rejected_seen:
                self.counts["duplicates"] += 1
                return
            self._rejected_seen[key] = None
            if len(self._rejected_seen) > REJECTED_KEPT:
                del self._rejected_seen[next(iter(self._rejected_seen))]
        self.counts["rejected"] += 1
        st.rejected += 1
        self._alert(st, "rejected: " + why)
        self.report(st.id, "rejected", why, detail)
        self._changed(st)

    def report(self, board, kind, why, detail=""):
        """Put a report on record (the director's page lists them)."""
        with self.lock:
            self.store.report(time.time(), board, kind, why, detail)
            self._broadcast({"t": "report", "board": board, "kind": kind, "why": why})

    def broker_report(self, kind, who, what):
        """What the broker refused (``Broker.on_report``)."""
        if kind == "denied":
            board = who
            self.report(board, "denied", "the broker refused a publish by %s on %s (not its "
                        "topic)" % (who, what), what)
            with self.lock:
                self.counts["rejected"] += 1
                if who in self.room.boards:
                    st = self._board(who)
                    st.rejected += 1
                    self._alert(st, "published on another board's topic: %s" % what)
                    self._changed(st)
        elif kind == "refused":
            self.report(who, "refused", "the broker refused a login (%s)" % what)

    def _alert(self, st, why):
        if not st.alerts or st.alerts[-1][1] != why:
            st.alerts.append([time.time(), why])
            del st.alerts[:-20]

    def clear_alerts(self, board):
        with self.lock:
            st = self.boards.get(board)
            if st is not None:
                st.alerts = []
                self._changed(st)

    # -- the round -------------------------------------------------------------------------------
    def set_round(self, n):
        with self.lock:
            self.round = int(n)
            self.store.set_setting("round", self.round)
            self.store.flush()

    def seat(self, round_, board, white, black):
        with self.lock:
            self.store.set_seat(int(round_), board, white, black)
            self.store.flush()

    # -- views -------------------------------------------------------------------------------------
    def _board(self, board):
        st = self.boards.get(board)
        if st is None:
            st = self.boards[board] = BoardState(board)
        return st

    def _mac(self, key):
        m = self._macs.get(key)
        if m is None:
            m = self._macs[key] = Mac(key)
        return m

    def _changed(self, st):
        self._rev += 1
        st.rev = self._rev
        if any("board" in kinds for _q, kinds in self.listeners):
            self._broadcast({"t": "board", "board": views.glance(st, time.time()),
                             "counts": dict(self.counts)})
        self._publish_view(st)

    def _publish_view(self, st):
        game = views.current(st)
        key = None if game is None else (game.serial, len(game.turns), game.state, self.delay)
        if key is None or key == st.view_key:
            return
        view = views.spectator(st, self.delay)
        if view is None:
            return
        st.view_key = key
        self._broadcast({"t": "view", "view": view})
        if self._client is not None:
            self._client.publish(hall_link.topic(self.room.name, st.id, hall_link.VIEW),
                                 json.dumps(view), qos=1, retain=True)

    def subscribe(self, kinds=("board", "report", "view")):
        """A queue of the news of ``kinds``; ``q.dropped`` is set when it overflowed (a page
        that does not keep up is let go, and its stream ends: the page connects again)."""
        q = queue.Queue(LISTENER_BACKLOG)
        q.dropped = False
        with self.lock:
            self.listeners.append((q, kinds))
        return q

    def unsubscribe(self, q):
        with self.lock:
            self.listeners = [x for x in self.listeners if x[0] is not q]

    def _broadcast(self, msg):
        for q, kinds in list(self.listeners):
            if msg["t"] not in kinds:
                continue
            try:
                q.put_nowait(msg)
            except queue.Full:            # a page that stopped reading: dropped
                q.dropped = True
                self.unsubscribe(q)

    def snapshot(self):
        """Every board at a glance, the counts, the round, the reports."""
        now = time.time()
        with self.lock:
            return {"hall": self.room.name, "round": self.round, "delay": self.delay,
                    "connected": self.connected, "counts": dict(self.counts),
                    "boards": [views.glance(st, now) for st in
                               sorted(self.boards.values(), key=lambda s: s.id)
                               if st.id in self.room.boards] +
                    [views.glance(self._board(b), now) for b in self.room.boards
                     if b not in self.boards],
                    "reports": self.store.reports(50)}

    def board_view(self, board):
        with self.lock:
            st = self.boards.get(board)
            return None if st is None else views.live(st, time.time())

    def watchable(self):
        """The boards the spectators can follow: those with a game the station holds."""
        with self.lock:
            return sorted(st.id for st in self.boards.values()
                          if st.id in self.room.boards and views.current(st) is not None)

    def spectators(self, boards=None):
        with self.lock:
            out = []
            for st in sorted(self.boards.values(), key=lambda s: s.id):
                if boards and st.id not in boards:
                    continue
                v = views.spectator(st, self.delay)
                if v is not None:
                    out.append(v)
            return out

    def results(self):
        with self.lock:
            return views.results(self.boards, self.store.seats())

    def games(self, round_=None, states=("complete",)):
        """The games of a round (all rounds: None) in the given states, as records."""
        with self.lock:
            out = []
            for st in self.boards.values():
                for game in st.games.values():
                    if game.state in states and (round_ is None or game.round == round_):
                        out.append(game.record())
            return out
