"""The board as the page sees it: the latest lines from the link, the log, the record, the checkers, the listeners, the director's acts."""

import collections
import json
import queue
import threading
import time

from host_tools import bounded
from host_tools.web import words
from host_tools.records.director import BoardClient, DirectorError
from host_tools.records.export import assemble
from host_tools.web.actions import Refused, command_line, protocol_line
from host_tools.web.checkers import VirtualCheckers, stacks_of_position
from host_tools.web.gameview import GameView

LOG_SIZE = 400
LISTENER_BACKLOG = 4000
# events after which the game record has grown: ask the board for it again
RECORD_EVENTS = ("new_game", "setup_ok", "opening", "roll", "choose", "cube", "commit",
                 "illegal", "resign", "time_out", "game_over", "power_restore")
# raw sensor events, which change nothing the status says: every other event is followed by a
# fresh status, so that the status line is never older than the last event
QUIET_EVENTS = ("lift", "place")
# answer lines a command's Reply keeps (``exchange``): the director's challenge and the identity
KEPT = ("challenge", "identity")
# a real board answers in order, and an export of a long game takes it seconds (README: trust)
DIRECTOR_TIMEOUT_S = 10.0
START_TIMEOUT_S = 30.0


class Reply:
    """The ``ok`` or ``err`` line that answers one command (every command gets exactly one)."""

    def __init__(self, line, origin):
        self.line = line
        self.origin = origin
        self.answer = None
        self.said = []               # the lines of kinds KEPT that came before the answer
        self._done = threading.Event()

    def settle(self, answer):
        self.answer = answer
        self._done.set()

    def wait(self, timeout=10.0):
        """The answer (a dict), or None when the board said nothing in time."""
        self._done.wait(timeout)
        return self.answer


class BoardHub:
    """Owns one link (simulated firmware or a real board) and fans its news out to listeners."""

    def __init__(self, link, director=None):
        self.link = link
        self.mode = "sim" if link.kind == "sim" else "live"
        # the tournament director (host_tools.records.director.Director, from ``play --keys``): the page
        # then acts on a real board with signed commands; without it, the live view only watches
        self.director = director if self.mode == "live" else None
        self.identity = None         # the board's, once check_director() has seen it
        self.checkers = VirtualCheckers() if self.mode == "sim" else None
        self.hello = None
        self.status = None
        self.leds = None
        self.record = None
        self._parts = []             # the record being streamed (record, rl..., record_end)
        self.game = GameView()
        self.link_up = False
        self.log = collections.deque(maxlen=LOG_SIZE)
        self.lines_in = 0
        self._pending = collections.deque()
        self._setup_waits_for_status = False
        self._lock = threading.RLock()
        self._send_lock = threading.Lock()
        self._acting = threading.Lock()     # one page act at a time: a challenge serves one command
        self._listeners = []
        self._outbox = queue.Queue()
        self._writer = threading.Thread(target=self._write_loop, name="hub-writer", daemon=True)

    # -- life ------------------------------------------------------------------------------------
    def start(self):
        self.link.on_close = self._link_closed
        self.link.start(self._line_in)
        self.link_up = True
        self._writer.start()
        self.send("status", origin="hub")
        self.send("export", origin="hub")
        return self

    def close(self):
        self._outbox.put(None)
        self.link.close()
        self.link_up = False

    def _write_loop(self):
        """Lines go out from here, in order, so that no reader thread ever blocks on a write."""
        while True:
            line = self._outbox.get()
            if line is None:
                return
            try:
                self.link.send(line)
            except OSError:
                self._link_closed()

    def _link_closed(self):
        with self._lock:
            self.link_up = False
            for reply in self._pending:
                reply.settle(None)
            self._pending.clear()
            self._broadcast({"t": "link", "up": False, "what": self.link.describe()})

    # -- listeners ---------------------------------------------------------------------------------
    def subscribe(self):
        """A queue that first holds a snapshot, then every update; pass it to unsubscribe()."""
        q = queue.Queue(maxsize=LISTENER_BACKLOG)
        with self._lock:
            q.put(self.snapshot())
            self._listeners.append(q)
        return q

    def unsubscribe(self, q):
        with self._lock:
            if q in self._listeners:
                self._listeners.remove(q)

    def snapshot(self):
        with self._lock:
            return {"t": "snapshot", "mode": self.mode, "link": self.link.describe(),
                    "link_up": self.link_up, "hello": self.hello, "status": self.status,
                    "leds": self.leds, "record": self.record, "log": list(self.log),
                    "checkers": self._checkers_view(), "view": self.game.view,
                    "director": self.director is not None}

    def match_records(self):
        """The records of the current match's games the hub has seen, in game order."""
        with self._lock:
            return self.game.match_records()

    def _broadcast(self, message):
        for q in list(self._listeners):
            try:
                q.put_nowait(message)
            except queue.Full:          # a stalled page: it reconnects and gets a snapshot
                self._listeners.remove(q)

    def _checkers_view(self):
        if self.checkers is not None:
            return self.checkers.snapshot()
        if self.status and self.status.get("position"):
            try:
                stacks = stacks_of_position(self.status["variant"], self.status["position"])
            except ValueError:
                return None
            return {"stacks": stacks, "hand": []}
        return None

    # -- commands ------------------------------------------------------------------------------------
    def send(self, line, origin="page"):
        """Send one command line; returns its Reply (already settled with None if the link is down,
        with an ``err`` if the line is not one printable protocol line: nothing is sent then)."""
        reply = Reply(line, origin)
        try:
            line = protocol_line(line)
        except Refused as exc:
            reply.settle({"t": "err", "cmd": "", "msg": "not sent: %s" % exc})
            return reply
        reply.line = line
        if not line:
            reply.settle({"t": "err", "cmd": "", "msg": "empty command"})
            return reply
        with self._send_lock:
            with self._lock:
                if not self.link_up:
                    reply.settle(None)
                    return reply
                self._pending.append(reply)
                if origin == "page":
                    self._note({"dir": "out", "line": line})
                self._outbox.put(line)
        return reply

    def page_action(self, action):
        """One action from the page (any JSON value); returns the Reply of the command it became,
        or one already settled with the reason it was refused (nothing sent). On a real board
        the line comes from ``actions.director_line``: refused without the director, signed with
        a fresh challenge otherwise."""
        with self._acting:
            try:
                line = command_line(action, self.mode == "sim", self.director, self._challenge)
            except Refused as exc:
                reply = Reply("", "page")
                reply.settle({"t": "err", "cmd": _action_label(action), "msg": str(exc)})
                return reply
            return self.send(line)

    def exchange(self, line, origin="director", timeout=DIRECTOR_TIMEOUT_S):
        """Send ``line`` and wait: the lines of kinds KEPT it brought, then its ok or err
        ([] when the board said nothing in time); the ``send`` of a ``director.BoardClient``."""
        reply = self.send(line, origin=origin)
        answer = reply.wait(timeout)
        return reply.said + [answer] if answer is not None else []

    def _challenge(self):
        """A fresh challenge from the board (``auth``) for the director's next command."""
        got = self.exchange("auth")
        if not got:
            raise Refused("the board did not answer the director's request for a challenge")
        if got[-1].get("t") != "ok":
            raise Refused("the board gave no challenge: %s" % got[-1].get("msg", ""))
        for obj in got:
            if obj.get("t") == "challenge" and isinstance(obj.get("board"), str) \
                    and isinstance(obj.get("nonce"), str):
                return obj
        raise Refused("the board answered auth without a challenge")

    def check_director(self):
        """The board's identity, checked against the director's key file (``play --keys``);
        DirectorError when the board has no key yet or holds another director's."""
        ident = BoardClient(lambda line: self.exchange(line, timeout=START_TIMEOUT_S)).identity()
        board = ident.get("board")
        if ident.get("open"):
            raise DirectorError("board %s has no key yet: provision it first (python -m "
                                "host_tools director provision --port PORT --keys FILE)" % board)
        mine = self.director.key_id(board)
        if ident.get("key") != mine:
            raise DirectorError("board %s holds key %s, not this director's (this key file would "
                                "give it key %s): another director's key file?"
                                % (board, ident.get("key"), mine))
        self.identity = ident
        return ident

    # -- lines from the board ---------------------------------------------------------------------------
    def _record_part(self, msg):
        """A line of a streamed record; the whole record (``host_tools.records.export.assemble``, with
        its ``events``) once its end has come, else None."""
        if msg.get("t") == "record":
            self._parts = [msg]
            return None
        if not self._parts:
            return None
        self._parts.append(msg)
        if msg.get("t") != "record_end":
            return None
        whole = assemble(self._parts)
        self._parts = []
        return dict(whole[0], t="record") if whole else None

    def _line_in(self, text):
        try:
            msg = bounded.loads(text)
            if not isinstance(msg, dict):
                raise ValueError
        except ValueError:
            msg = {"t": "text", "text": text}
        if msg.get("t") in ("record", "rl", "record_end"):
            msg = self._record_part(msg)     # the board streams a record: one object once whole
            if msg is None:
                return
        with self._lock:
            self.lines_in += 1
            try:
                follow_up = self._take(msg)
                changed = self.game.take(msg)
            except Exception as exc:       # a line the hub cannot follow must not stop the link
                self._note({"dir": "in", "line": {"t": "text", "text": "hub: %r on %s" % (exc, text[:80])}})
                follow_up, changed = [], False
            self._broadcast(msg)
            if changed:
                self._broadcast(dict(self.game.view, t="view"))
        for line in follow_up:
            self.send(line, origin="hub")

    def _take(self, msg):
        """Update the state from one board line; returns the commands the hub sends next."""
        kind = msg.get("t")
        follow_up = []
        if kind == "leds":
            self.leds = msg.get("rgb")
        elif kind == "hello":
            self.hello = msg
            self._note({"dir": "in", "line": msg})
        elif kind == "status":
            self.status = msg
            if self._setup_waits_for_status and self.checkers is not None:
                self._setup_waits_for_status = False
                self.checkers.set_out(stacks_of_position(msg["variant"], msg["position"]))
            self._broadcast_checkers()
        elif kind == "record":
            self.record = msg
        elif kind in KEPT and self._pending:
            self._pending[0].said.append(msg)       # the answer of the command at the head
            self._note({"dir": "in", "line": msg})
        elif kind in ("ok", "err"):
            reply = self._pending.popleft() if self._pending else None
            if reply is not None:
                try:
                    if kind == "ok":
                        follow_up += self._accepted(reply.line)
                    if reply.origin == "page" or kind == "err":
                        self._note({"dir": "in", "line": msg})
                finally:
                    reply.settle(msg)
        elif kind == "ev":
            self._note({"dir": "in", "line": msg})
            name = msg.get("ev")
            # status first: when the record arrives, the status is at least as new as it
            if name not in QUIET_EVENTS:
                follow_up.append("status")
            if name in RECORD_EVENTS:
                follow_up.append("export")
        else:
            self._note({"dir": "in", "line": msg})
        return follow_up

    def _accepted(self, line):
        words = line.split()
        if words and words[0] == "dir":      # the director's act is on record: show it
            return ["status", "export"]
        if self.checkers is None or not words or words[0] != "sim":
            return []
        if len(words) > 1 and words[1] == "setup":
            self._setup_waits_for_status = True
            return ["status"]
        self.checkers.accepted(words)
        self._broadcast_checkers()
        return []

    def _broadcast_checkers(self):
        view = self._checkers_view()
        if view is not None:
            self._broadcast(dict(view, t="checkers"))

    def _note(self, entry):
        """One line for the page's event list, in words and raw; sent to the pages at once."""
        entry["at"] = round(time.time(), 3)
        line = entry["line"]
        if entry["dir"] == "out":       # the page's hands on the virtual board: raw only
            if line.startswith("sim "):
                entry["words"] = None
            elif line.startswith("dir "):
                entry["words"] = "sent as the director: " + line.split(" ", 2)[-1]
            else:
                entry["words"] = "sent: " + line
        else:
            try:
                entry["words"] = words.event_words(line, self.game.rules(), self.game.cube_value())
            except Exception:          # a line the words do not know: the raw line stands
                entry["words"] = json.dumps(line)
        self.log.append(entry)
        self._broadcast(dict(entry, t="log"))


def _action_label(action):
    """A refused action named for its err line: the command's line, else what it does."""
    if isinstance(action, dict):
        what = action.get("line") if action.get("do") == "command" else action.get("do")
    else:
        what = action
    text = what if isinstance(what, str) else json.dumps(what)
    return "".join(c if " " <= c <= "~" else "?" for c in text)[:40]
