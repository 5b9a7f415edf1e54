"""The hall drill: many simulated boards play whole games into one station through bridges and a real broker, while the drill breaks things; then every game is checked.

``run(boards, seed)`` starts Mosquitto for a fresh room, the station, ``boards`` simulated boards
(``simboard``: the firmware on the simulated hardware, each its own process, soak players with
power cuts mid-write, variants in turn) and bridge processes (``hallbridge``, several boards
each, on the boards' pseudo-terminals). While the games go on it, at seeded random moments,
restarts the broker (killed or stopped), kills a bridge and starts it again (every connection of
its boards dropped; lines the boards write meanwhile are lost on the way), and a compromised
board publishes forgeries: another board's line on its own topic, a line with a broken seal,
and a line on another board's topic (which the broker refuses). When every board has played,
it waits for the station to hold every game, then compares each game the station holds with
the record the board itself exports: lost lines (the board's, missing at the station),
duplicated lines accepted (held twice), games not complete or not verified, forgeries not
rejected or not reported. ``Result.ok`` is True when all of those are zero.
"""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from firmware.rules import variants
from host_tools.hall.broker import Broker, free_port
from host_tools.hall.room import Room
from host_tools.hall.station import Station
from host_tools.hall.store import Store
from host_tools import REPO_ROOT

VARIANTS = tuple(variants.VARIANTS)     # every variant, in the rules core's order
FORGER = "forger"       # an admitted board id used by nobody: a compromised board


class Result:
    """The drill's figures (``as_dict``) and its verdict (``ok``, ``failures``)."""

    FIELDS = ("seed", "boards", "games", "lines", "lost_lines", "duplicates_accepted",
              "duplicates_received", "incomplete_games", "unverified_games", "forged",
              "forged_rejected", "denied_reported", "broker_restarts", "bridge_kills",
              "power_cuts", "wants", "board_defects", "seconds")

    def __init__(self, seed):
        for f in self.FIELDS:
            setattr(self, f, 0)
        self.seed = seed
        self.problems = []
        self.notes = []         # what the boards themselves got wrong (firmware, not the hall)

    def as_dict(self):
        d = {f: getattr(self, f) for f in self.FIELDS}
        d["problems"] = self.problems[:20]
        d["notes"] = self.notes[:20]
        return d

    def failures(self):
        return (self.lost_lines + self.duplicates_accepted + self.incomplete_games
                + self.unverified_games + (self.forged - self.forged_rejected)
                + (0 if self.denied_reported or not self.forged else 1))

    @property
    def ok(self):
        return self.failures() == 0 and not self.problems


def _python():
    return [sys.executable]


class Drill:
    def __init__(self, boards, seed, folder, speed, bridges, disrupt, log):
        self.n = boards
        self.seed = seed
        self.rng = random.Random(seed)
        self.folder = folder
        self.speed = speed
        self.n_bridges = bridges
        self.disrupt = disrupt
        self.log = log
        self.ids = ["h%05d" % i for i in range(boards)]
        self.board_ids = [b.encode().hex() for b in self.ids]
        self.room = Room.create(os.path.join(folder, "room"), port=free_port(),
                                boards=self.board_ids + [FORGER])
        self.result = Result(seed)
        self.boards = []          # (process, info, out path)
        self.bridges = []         # [process, ports]
        self.done = {}
        self.broker = None
        self.station = None

    # -- the parts ----------------------------------------------------------------------------
    def start(self):
        self.broker = Broker(self.room).start()
        self.station = Station(self.room, Store(self.room.file("station.db"))).start()
        self.broker.on_report = self.station.broker_report
        for i, name in enumerate(self.ids):
            out = os.path.join(self.folder, "%s.jsonl" % name)
            key = self.room.board_key(self.board_ids[i]).hex()
            p = subprocess.Popen(_python() + [
                "-m", "host_tools.hall.simboard", "--id", name, "--variant",
                VARIANTS[i % len(VARIANTS)], "--seed", str(self.seed), "--key", key,
                "--speed", str(self.speed), "--out", out, "--wait-host",
                "--flash", os.path.join(self.folder, "flash-" + name)],
                cwd=REPO_ROOT, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
            info = json.loads(p.stdout.readline())
            self.boards.append((p, info, out))
            threading.Thread(target=self._watch, args=(i, p), daemon=True).start()
        per = max(1, -(-self.n // self.n_bridges))
        ports = [b[1]["port"] for b in self.boards]
        for k in range(0, len(ports), per):
            self.bridges.append([None, ports[k:k + per]])
            self._start_bridge(len(self.bridges) - 1)

    def _watch(self, i, proc):
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("done"):
                self.done[i] = msg

    def _start_bridge(self, k):
        b = self.bridges[k]
        b[0] = subprocess.Popen(_python() + ["-m", "host_tools", "hallbridge", "--quiet",
                                             self.room.path] + b[1],
                                cwd=REPO_ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

    def stop(self):
        for b in self.bridges:
            if b[0] is not None and b[0].poll() is None:
                b[0].terminate()
        for p, _info, _out in self.boards:
            if p.poll() is None:
                p.terminate()
        for b in self.bridges:
            if b[0] is not None:
                _reap(b[0])
        for p, _info, _out in self.boards:
            _reap(p)
        if self.station is not None:
            self.station.stop()
        if self.broker is not None:
            self.broker.stop()

    # -- breaking things ----------------------------------------------------------------------
    def break_something(self):
        what = self.rng.choice(("broker", "bridge", "bridge", "forge"))
        if what == "broker":
            kill = self.rng.random() < 0.5
            self.judged()
            self.log("drill: broker %s" % ("killed" if kill else "restarted"))
            self.broker.restart(kill=kill, down_s=self.rng.uniform(0.2, 1.5))
            self.result.broker_restarts += 1
        elif what == "bridge":
            k = self.rng.randrange(len(self.bridges))
            self.log("drill: bridge %d killed" % k)
            self.bridges[k][0].kill()
            _reap(self.bridges[k][0])
            time.sleep(self.rng.uniform(0.2, 2.0))
            self._start_bridge(k)
            self.result.bridge_kills += 1
        elif what == "forge":
            self.forge()

    def forge(self):
        """A compromised board publishes: another board's line on its own topic, a line with a
        broken seal, and a line on another board's topic."""
        from firmware.board import hall_link
        from host_tools.hall import mqtt
        with self.station.lock:
            have = [(st.id, g.serial, g.lines[n]) for st in self.station.boards.values()
                    for g in st.games.values() for n in sorted(g.lines)[:3]]
        if not have:
            return
        victim, serial, line = self.rng.choice(have)
        broken = line[:-1] + ("0" if line[-1] != "0" else "1")
        deadline = time.monotonic() + 20          # the forgeries go to a station that listens
        while not (self.station.connected and self.broker.running()) \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        got = threading.Event()
        c = mqtt.connect(self.room, FORGER, on_connect=lambda client: got.set())
        if not got.wait(10):
            mqtt.close(c)
            return
        name = self.room.name
        msgs = [(hall_link.topic(name, FORGER, hall_link.LINE), {"t": "rl", "s": serial, "l": line}),
                (hall_link.topic(name, FORGER, hall_link.LINE), {"t": "rl", "s": serial,
                                                                 "l": broken}),
                (hall_link.topic(name, victim, hall_link.LINE), {"t": "rl", "s": serial,
                                                                 "l": broken})]
        for topic, msg in msgs:
            c.publish(topic, json.dumps(msg), qos=1).wait_for_publish(5)
        mqtt.close(c)
        self.result.forged += len(msgs)
        self.log("drill: %d forged lines published (victim %s)" % (len(msgs), victim))

    def _forger_reports(self):
        return len([x for x in self.station.store.reports(100000)
                    if x["board"] == FORGER and x["kind"] in ("rejected", "denied")])

    def judged(self, seconds=60):
        """Wait until the station has reported every forgery published (each is one report,
        rejected or denied); the broker is not restarted before: a station behind its queue
        (the boards answering its wants after a restart) takes a while, and a broker killed
        would take the forgeries still queued for the station along (nobody sends a forgery
        again, as a board sends its lines)."""
        deadline = time.monotonic() + seconds
        while self._forger_reports() < self.result.forged and time.monotonic() < deadline:
            time.sleep(0.2)
        if self._forger_reports() < self.result.forged:
            self.log("drill: the station has not reported the forgeries after %d s" % seconds)

    # -- the run ------------------------------------------------------------------------------
    def play(self, timeout):
        deadline = time.monotonic() + timeout
        next_break = time.monotonic() + self.rng.uniform(1.0, 3.0)
        while len(self.done) < self.n and time.monotonic() < deadline:
            for i, (p, _info, _out) in enumerate(self.boards):
                if p.poll() is not None and i not in self.done:
                    self.result.problems.append("board %s stopped before its games ended "
                                                "(exit %s)" % (self.ids[i], p.returncode))
                    self.done[i] = {"counters": {}}
            if self.disrupt and time.monotonic() >= next_break:
                self.break_something()
                next_break = time.monotonic() + self.rng.uniform(1.0, 4.0)
            time.sleep(0.2)
        if len(self.done) < self.n:
            self.result.problems.append("%d board(s) still playing after %d s"
                                        % (self.n - len(self.done), timeout))
        if self.disrupt and not self.result.forged:
            self.forge()
        # every bridge up, the broker up: the station gathers what is missing
        if not self.broker.running():
            self.broker.start()
        for k, b in enumerate(self.bridges):
            if b[0].poll() is not None:
                self._start_bridge(k)
        self.settle(deadline + 60)
        self.judged()

    def expected(self):
        """{(board id, serial): record} as the boards themselves exported them."""
        out = {}
        for p, info, path in self.boards:
            try:
                with open(path) as f:
                    for line in f:
                        r = json.loads(line)
                        out[(r["board"], r["serial"])] = r
            except OSError:
                pass
        return out

    def settle(self, deadline):
        want = self.expected()
        while time.monotonic() < deadline:
            with self.station.lock:
                pending = [k for k in want if not self._held(k, want[k])]
            if not pending:
                return
            time.sleep(0.5)

    def _held(self, key, record):
        st = self.station.boards.get(key[0])
        game = st.games.get(key[1]) if st else None
        if game is None:
            return False
        if not _verifies(record, self.room.keyring):     # the board's own record is broken
            return game.next >= len(record["lines"])
        return game.done() and game.next == len(record["lines"])

    def check(self):
        r = self.result
        want = self.expected()
        st = self.station
        with st.lock:
            for (board, serial), rec in sorted(want.items()):
                r.games += 1
                lines = rec["lines"]
                r.lines += len(lines)
                game = st.boards.get(board).games.get(serial) if board in st.boards else None
                held = game.lines if game is not None else {}
                missing = [n for n in range(len(lines)) if held.get(n) != lines[n]]
                r.lost_lines += len(missing)
                if missing:
                    r.problems.append("%s game %d: %d line(s) missing or different, first %d"
                                      % (board, serial, len(missing), missing[0]))
                extra = [n for n in held if n >= len(lines)]
                r.lost_lines += len(extra)
                ending = json.loads(lines[-1][:-33]).get("k") if lines else None
                want_state = "abandoned" if ending == "abandon" else "complete"
                why = _verifies(rec, self.room.keyring)
                if not why:
                    # the board's own record fails (a firmware defect, not the hall's): the
                    # station must hold the same lines, and may not call the game complete
                    r.board_defects += 1
                    r.notes.append("%s game %d: the board's own record fails: %s" % (
                        board, serial, _why(rec, self.room.keyring)))
                    if game is not None and game.state == "complete":
                        r.unverified_games += 1
                    continue
                if game is None or game.state != want_state:
                    r.incomplete_games += 1
                    r.problems.append("%s game %d is %s at the station, not %s (%s)" % (
                        board, serial, game.state if game else "missing", want_state,
                        "; ".join(game.notes) if game else ""))
                elif game.state == "broken":
                    r.unverified_games += 1
            rows = st.store.query("SELECT board, serial, n, COUNT(*) FROM lines GROUP BY board, "
                                  "serial, n HAVING COUNT(*) > 1")
            r.duplicates_accepted = len(rows)
            r.duplicates_received = st.counts["duplicates"]
            r.wants = st.counts["wants"]
            reports = st.store.reports(100000)
            forged = [x for x in reports if x["board"] == FORGER or x["kind"] == "denied"]
            r.forged_rejected = len([x for x in forged if x["kind"] in ("rejected", "denied")])
            r.denied_reported = len([x for x in reports if x["kind"] == "denied"])
            unexpected = [x for x in reports if x["board"] != FORGER and x["kind"] != "denied"
                          and x["kind"] != "broken"]
            for x in unexpected[:10]:
                r.problems.append("report: %s %s %s" % (x["board"], x["kind"], x["why"]))
        for msg in self.done.values():
            r.power_cuts += (msg.get("counters") or {}).get("power_cuts", 0)
            bad = {k: v for k, v in (msg.get("counters") or {}).items()
                   if k in ("desyncs", "rejected_legal", "accepted_illegal", "lost_turns",
                            "bad_records") and v}
            if bad:
                r.notes.append("board %s: the soak player counted %s" % (msg.get("board"), bad))
        r.boards = self.n
        return r


def _why(record, keyring):
    from host_tools.records.export import ExportError, replay_record, verify
    try:
        ending = json.loads(record["lines"][-1][:-33]).get("k")
        v = verify(record, keyring, partial=ending == "abandon")
        replay_record(record, keyring, partial=True, verified=v)
    except (ExportError, ValueError, KeyError, IndexError) as exc:
        return str(exc)
    return ""


_VERDICTS: dict = {}


def _verifies(record, keyring):
    key = (record["board"], record["serial"], len(record["lines"]))
    if key not in _VERDICTS:
        _VERDICTS[key] = not _why(record, keyring)
    return _VERDICTS[key]


def _reap(proc):
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run(boards=50, seed=None, speed=20.0, bridges=5, disrupt=True, timeout=600, folder=None,
        log=None):
    """Run the drill (see the module's docstring); returns its ``Result``. The seed is printed
    first (``log``), so a failure plays again with ``--seed``."""
    if seed is None:
        seed = random.SystemRandom().randrange(1, 1 << 31)
    log = log or (lambda text: print(text, flush=True))
    log("hall drill: %d boards, seed %d" % (boards, seed))
    own = folder is None
    folder = folder or tempfile.mkdtemp(prefix="nardy-hall-drill-")
    t0 = time.monotonic()
    d = Drill(boards, seed, folder, speed, bridges, disrupt, log)
    old = signal.getsignal(signal.SIGINT)
    try:
        d.start()
        d.play(timeout)
        r = d.check()
    finally:
        d.stop()
        signal.signal(signal.SIGINT, old)
        if own:
            shutil.rmtree(folder, ignore_errors=True)
    r.seconds = round(time.monotonic() - t0, 1)
    return r
