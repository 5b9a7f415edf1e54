"""The tournament hall's topics, and a Pico W's own link to the hall over Wi-Fi (MQTT, umqtt.simple).

Every board in a hall speaks on MQTT topics ``<hall>/<board>/<kind>`` (docs/hall.md): the board
(or the host bridge of a USB board, ``host_tools/hall/bridge.py``, which uses ``route`` and
``topic`` from here) publishes its protocol lines there, unchanged, as they come: ``line`` the
sealed journal lines (``rl``, QoS 1), ``tag`` the board's tag over a game's lines
(``record_end``, QoS 1), ``status`` (QoS 1, retained), ``ev`` the live events (hello, the
board's restarts and the list of its games, ``games``, at QoS 1, the rest at QoS 0, raw sensor
events left out), ``conn`` whether the
board is connected (retained; the broker publishes the last will ``{"on": false}`` when the
connection dies). The station answers on ``want``: ``{"s": serial, "n": first, "m": end}`` asks
for game ``s``'s lines ``n`` to ``m - 1`` again (``export s n m``; no ``m``: to the last), after
any reconnect or gap, so a line lost on the way is sent again from the journal on flash, and
duplicates are known by their n.

On a Pico W (hardware/board.json ``"mcu": {"wifi": true}``) the App registers the ``hall``
command with this module and starts the link (``hall on``): the module then stays loaded and
publishes the board's own lines with MicroPython's ``umqtt.simple`` (``mpremote mip install
umqtt.simple``), with the hall's address and secrets from the flash file ``hall.json``
(``python -m host_tools hall picow`` writes it). It never stops the board: a connection that
fails is dropped and tried again later, and the lines meanwhile wait on flash for the station's
``want``. Elsewhere this module is not loaded on the board (the host tools import its names).
"""

import gc
import json

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

LINE = "line"
TAG = "tag"
STATUS = "status"
EV = "ev"
CONN = "conn"
WANT = "want"
VIEW = "view"
_CONFIG = const("hall.json")
_QUIET = const(("lift", "place", "step", "undo"))   # events too many and too small for the hall
_RETRY_MS = const(2000)         # first wait before connecting again; doubles up to _RETRY_MAX_MS
_RETRY_MAX_MS = const(30000)
_PING_MS = const(20000)         # keep-alive: a ping this often (the broker allows 3 x 20 s)


def topic(hall, board, kind):
    """The topic of ``kind`` for ``board`` in ``hall``."""
    return "%s/%s/%s" % (hall, board, kind)


def route(kind, ev=None):
    """Where a protocol line of kind ``kind`` (``ev``: an event's name) goes in the hall:
    (topic kind, QoS, retained), or None when the hall does not carry it."""
    if kind == "rl":
        return (LINE, 1, False)
    if kind == "record_end":
        return (TAG, 1, False)
    if kind == "status":
        return (STATUS, 1, True)
    if kind == "hello" or kind == "fatal" or kind == "games":
        return (EV, 1, False)
    if kind == "ev":
        if ev in _QUIET:
            return None
        return (EV, 1 if ev == "power_restore" or ev == "game_over" else 0, False)
    return None


def want_of(payload):
    """(serial, first line, end) of a ``want`` message (end -1: to the last line), or None when
    it is not one."""
    try:
        w = json.loads(payload)
        s = w["s"]
        n = w["n"]
        m = w.get("m", -1)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if not isinstance(s, int) or not isinstance(n, int) or not isinstance(m, int) or s < 1 \
            or n < 0:
        return None
    return s, n, m


class Link:
    """A Pico W's connection to the hall's broker: the board's lines out, the station's wants in."""

    def __init__(self, app, cfg):
        self.app = app
        self.cfg = cfg
        self.board = app.session.identity.board_id
        self.hall = cfg.get("hall", "hall")
        self.client = None
        self.wlan = None
        self.retry = 0              # ms to wait before the next try (0: try now)
        self.tried = 0
        self.pinged = 0
        self.want = None
        self.status = None          # the last status line: published again on connecting
        self.sent = 0
        self.fails = 0
        self.why = ""
        self.kind = None
        self.ev = None

    # -- hooks into the App: its lines out, its ticks -----------------------------------------
    def attach(self):
        app = self.app
        app_emit = app.emit
        app_write = app.write
        app_tick = app.tick
        link = self

        # (named as the App's own methods they wrap: a function's name is an interned name)
        def emit(kind, fields):
            link.kind = kind
            link.ev = fields.get("ev")
            app_emit(kind, fields)
            link.kind = None

        def write(text):
            app_write(text)
            if link.kind is not None:
                link.out(link.kind, link.ev, text)

        def tick(now):
            app_tick(now)
            link.poll(now)

        app.emit = emit
        app.session.emit = emit
        app.write = write
        app.tick = tick
        if app.sim is not None:         # the simulated hands tick the board while they wait
            app.sim.tick = tick

    def out(self, kind, ev, text):
        r = route(kind, ev)
        if r is None:
            return
        if kind == "status":
            self.status = text
        if self.client is not None:
            self.publish(r[0], text, r[2], r[1])

    def publish(self, kind, text, retain=False, qos=1):
        try:
            self.client.publish(topic(self.hall, self.board, kind).encode(), text.encode(),
                                retain, qos)
            self.sent += 1
        except Exception as exc:    # the connection died: the lines wait on flash for a want
            self.drop(exc)

    def drop(self, exc):
        self.fails += 1
        self.why = repr(exc)[:60]
        try:
            self.client.sock.close()
        except Exception:
            pass
        self.client = None
        self.retry = _RETRY_MS if not self.retry else min(2 * self.retry, _RETRY_MAX_MS)

    # -- the connection ---------------------------------------------------------------------------
    def connect(self, now):
        self.tried = now
        if self.wlan is None:       # Wi-Fi first (on the unix port the host's network is there)
            try:
                import network
                self.wlan = network.WLAN(network.STA_IF)
                self.wlan.active(True)
                self.wlan.connect(self.cfg["ssid"], self.cfg.get("key", ""))
            except ImportError:
                self.wlan = False
        if self.wlan and not self.wlan.isconnected():
            self.retry = _RETRY_MS
            return
        gc.collect()                # room for the client's code in a heap that play fragments
        from umqtt.simple import MQTTClient
        cfg = self.cfg
        me = self.board.encode()
        c = MQTTClient(me, cfg["broker"], cfg.get("port", 1883), me, cfg["password"].encode(),
                       3 * _PING_MS // 1000)
        c.set_last_will(topic(self.hall, self.board, CONN).encode(), b'{"on": false}', True, 1)
        c.set_callback(self.message)
        self.client = c
        try:
            c.connect()
            c.subscribe(topic(self.hall, self.board, WANT).encode(), 1)
        except Exception as exc:
            self.drop(exc)
            return
        self.retry = 0
        self.pinged = now
        self.publish(CONN, json.dumps({"on": True, "via": "wifi", "board": self.board}), True)
        if self.status is not None and self.client is not None:
            self.publish(STATUS, self.status, True)
        if self.client is not None:         # the games on flash: the station asks for any it lacks
            from firmware.board import protocol
            protocol.handle(self.app, "export list")

    def message(self, t, payload):
        w = want_of(payload)
        if w is not None:
            self.want = w           # served in ``poll``, never inside the client's read

    def poll(self, now):
        if self.client is None:
            if self.app.hw.ticks_diff(now, self.tried) >= self.retry:
                self.connect(now)
            return
        try:
            if self.app.hw.ticks_diff(now, self.pinged) >= _PING_MS:
                self.pinged = now
                self.client.ping()
            self.client.check_msg()
        except Exception as exc:
            self.drop(exc)
            return
        w = self.want
        if w is not None:
            self.want = None
            from firmware.board import protocol
            protocol.handle(self.app, "export %d %d %d" % w)

    def state(self):
        return {"on": self.client is not None, "hall": self.hall, "broker": self.cfg.get("broker"),
                "sent": self.sent, "fails": self.fails, "why": self.why}


LINK = None


def run(app, words, fail, need):
    """hall [on]: the link's state; ``on`` (the App at start-up) starts the link."""
    global LINK
    if len(words) > 1 and words[1] == "on":
        if LINK is not None:
            if LINK.app is app:
                return
            if LINK.client is not None:     # the board restarted (simulated): a fresh link
                LINK.drop(OSError("restart"))
        raw = app.session.journal.storage.read(_CONFIG)
        try:
            cfg = json.loads(bytes(raw).decode())
            cfg["broker"]
            cfg["password"]
        except (TypeError, ValueError, KeyError, UnicodeError):
            app.emit("hall", {"on": False, "why": "no usable %s on flash: python -m host_tools "
                                                  "hall picow writes it" % _CONFIG})
            return
        LINK = Link(app, cfg)
        LINK.attach()
        return
    if len(words) != 1:
        fail("usage: hall")
    app.emit("hall", LINK.state() if LINK is not None else {"on": False, "why": "not started"})
