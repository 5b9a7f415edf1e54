"""The bridge: a USB board's protocol lines carried into the hall, and the station's requests carried back.

A board without Wi-Fi speaks the serial protocol (docs/protocol.md) to the computer it is
plugged into; the bridge reads it there (``host_tools.device.serial_link``) and publishes what a Pico W
publishes itself, on the same topics (``firmware.board.hall_link.route``): the board's sealed
journal lines as they reach its flash, the tag of an exported game, its status and its events.
It logs in to the broker as the board (user name and client id = the board's id, which the
board tells at once: ``identity``), so the broker's ACL lets it write that board's topics only.
When the station asks for lines again (``want``), the bridge sends the board ``export <serial>
<first line> <end>``, whose answer goes out like the rest. A board that reboots says ``hello``; a port
that goes away is opened again until it comes back; meanwhile the lines wait on the board's
flash, and the station asks for what it lacks when the board is back (``conn``).
"""

import json
import threading
import time

from host_tools import bounded
from firmware.board import hall_link
from host_tools.hall import mqtt

REOPEN_S = 1.0
EARLY_MAX = 5000        # lines kept while the board's id is not known yet


class Relay:
    """One board's link (``start(on_line)``, ``send(text)``, ``close()``, ``on_close``: a
    ``SerialLink`` or anything alike) carried into ``room``'s hall; ``make_link()`` makes a
    fresh link after the old one closed (None: the relay ends with its link)."""

    def __init__(self, room, make_link, note=None):
        self.room = room
        self.make_link = make_link
        self.note = note or (lambda text: None)
        self.link = None
        self.board = None
        self.client = None
        self.early = []         # lines read before the board said its id: published after
        self.connected = False
        self.lines = 0          # lines from the board
        self.published = 0
        self.wants = 0
        self.closing = threading.Event()
        self.link_down = threading.Event()
        self._thread = None

    # -- the board's side ---------------------------------------------------------------------
    def start(self):
        self._thread = threading.Thread(target=self._run, name="relay", daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self.closing.is_set():
            try:
                link = self.make_link()
                self.link_down.clear()
                link.on_close = self.link_down.set
                link.start(self._line)
            except Exception as exc:         # the port is not there (yet): try again
                self.note("bridge: cannot open the board's port: %s" % exc)
                self.closing.wait(REOPEN_S)
                continue
            self.link = link
            link.send("identity")            # the board's id: whose topics these are
            self.link_down.wait()
            self.link = None
            self._publish(hall_link.CONN, json.dumps({"on": False, "why": "the board's port "
                                                      "closed"}), 1, True)
            try:
                link.close()
            except Exception:
                pass
            self.closing.wait(REOPEN_S)

    def _line(self, text):
        self.lines += 1
        try:
            msg = bounded.loads(text)
        except ValueError:
            return                           # noise on the line (a partial line after a reopen)
        if not isinstance(msg, dict):
            return
        kind = msg.get("t")
        if kind in ("identity", "hello") and isinstance(msg.get("board"), str):
            self._board(msg["board"])
        r = hall_link.route(kind, msg.get("ev"))
        if r is None:
            return
        if self.client is None:
            if len(self.early) < EARLY_MAX:
                self.early.append((r, text))
            return
        self._publish(r[0], text, r[1], r[2])

    def _board(self, board):
        if board == self.board:
            return
        if self.client is not None:          # another board on this port: its own login
            mqtt.close(self.client)
            self.client = None
        self.board = board
        self.note("bridge: board %s" % board)
        # kept before its network thread starts: a broker on this machine answers at once,
        # and _connected publishes the board's connection through self.client
        self.client = mqtt.connect(
            self.room, board, on_connect=self._connected, on_message=self._want,
            on_disconnect=self._disconnected,
            will=(self._topic(hall_link.CONN), json.dumps({"on": False, "why": "the bridge's "
                                                           "connection died"})), start=False)
        early, self.early = self.early, []
        for r, text in early:                # queued by the client until it is connected
            self._publish(r[0], text, r[1], r[2])
        self.client.loop_start()

    # -- the hall's side ------------------------------------------------------------------------
    def _topic(self, kind):
        return hall_link.topic(self.room.name, self.board, kind)

    def _publish(self, kind, text, qos=0, retain=False):
        c = self.client
        if c is None:
            return
        c.publish(self._topic(kind), text, qos=qos, retain=retain)
        self.published += 1

    def _connected(self, client):
        self.connected = True
        client.subscribe(self._topic(hall_link.WANT), qos=1)
        self._publish(hall_link.CONN, json.dumps({"on": True, "via": "usb", "board": self.board,
                                                  "at": time.time()}), 1, True)
        link = self.link
        if link is not None:
            link.send("status")              # the retained status is the board's of now
            link.send("export list")         # its games on flash: the station asks for any
                                             # it lacks (one that began while nobody carried
                                             # the board's lines, say)

    def _disconnected(self, client):
        self.connected = False

    def _want(self, client, topic, payload):
        w = hall_link.want_of(payload)
        link = self.link
        if w is None or link is None:
            return
        self.wants += 1
        link.send("export %d %d %d" % w)

    def close(self):
        self.closing.set()
        self.link_down.set()
        if self.client is not None:
            self._publish(hall_link.CONN, json.dumps({"on": False, "why": "the bridge "
                                                      "stopped"}), 1, True)
            time.sleep(0.05)
            mqtt.close(self.client)
        link = self.link
        if link is not None:
            try:
                link.close()
            except Exception:
                pass
        if self._thread is not None:
            self._thread.join(timeout=3)

    def state(self):
        return {"board": self.board, "connected": self.connected, "lines": self.lines,
                "published": self.published, "wants": self.wants,
                "link": self.link is not None}
