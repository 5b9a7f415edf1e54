"""The board as the page sees it: the latest lines from the link, the log, the record, the checkers, the listeners."""

import collections
import json
import queue
import threading
import time

from host_tools.web import words
from host_tools.export import assemble
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


class Reply:
    """The ``ok`` or ``err`` line that answers one command (every command gets exactly one)."""

    def __init__(self, line, origin):
        self.line = line
        self.origin = origin
        self.answer = None
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

    def __init__(self, link):
        self.link = link
        self.mode = "sim" if link.kind == "sim" else "live"
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
                    "checkers": self._checkers_view(), "view": self.game.view}

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
        or one already settled with the reason it was refused (nothing sent)."""
        try:
            line = command_line(action, self.mode == "sim")
        except Refused as exc:
            reply = Reply("", "page")
            reply.settle({"t": "err", "cmd": _action_label(action), "msg": str(exc)})
            return reply
        return self.send(line)

    # -- lines from the board ---------------------------------------------------------------------------
    def _record_part(self, msg):
        """A line of a streamed record; the whole record (``host_tools.export.assemble``, with
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
            msg = json.loads(text)
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
            entry["words"] = None if line.startswith("sim ") else "sent: " + line
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
