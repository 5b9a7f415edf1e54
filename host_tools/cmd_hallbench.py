"""Benchmark the hall: how many boards one station handles at a committed turn every 5 s each, and the latency from commit to the spectators' page.

python -m host_tools hallbench [--counts 50,100,200,400,800] [--interval 5] [--seconds 30]
                               [--bound-ms 1000] [--procs 4] [--seed N] [--json]
For each count it starts a fresh hall (`hall run`: Mosquitto, the station, its pages) and that
many bench boards (host_tools/hall/bench.py: real games sealed under each board's own key, one
MQTT login each, spread over --procs generator processes, at least one per 250 boards)
committing a turn every --interval seconds each for --seconds; it reads the spectators' page's
event stream and prints, per count, the turns committed, the turns that reached the page, and
the latency from commit to page (median, 99th percentile by nearest rank, worst). A turn
reaches the page with the first view of its board's game that shows it (a view may show several
new turns at once). A count is sustained when the generators sent every turn that fell due,
every one of them reached the page, the page's stream stayed open, and the 99th percentile is
at most --bound-ms; the counts stop after the first one not sustained.
"""

import argparse
import http.client
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlsplit

from host_tools import prog
from host_tools import REPO_ROOT


BOARDS_PER_PROC = 250    # paho waits with select(), which takes no file above 1023: a board
                         # takes three (its socket, a socket pair), so a generator runs no more
READ_TIMEOUT_S = 30      # the page sends a keep-alive every 10 s (web.KEEPALIVE_S) when quiet


def _listen(url, got, stop, state):
    """The spectators' event stream: (board, serial, n, arrival) of every view; ``state["open"]``
    (an Event) is set once the page answered; ``state["ended"]`` when the stream ended before
    the bench stopped (the page let go of a reader that fell behind, or the page went quiet
    for READ_TIMEOUT_S), with ``state["error"]`` saying why."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=READ_TIMEOUT_S)
    try:
        conn.request("GET", "/api/stream")
        resp = conn.getresponse()
        if resp.status != 200:
            raise http.client.HTTPException("the page answered %d" % resp.status)
        state["open"].set()
        while not stop.is_set():
            line = resp.fp.readline()
            if not line:
                if not stop.is_set():
                    state["error"] = "the page closed the stream"
                break
            if line.startswith(b"data: "):
                t = time.time()
                msg = json.loads(line[6:])
                v = msg.get("view")
                if msg.get("t") == "view" and v and v.get("n"):
                    got.append((v["board"], v["serial"], v["n"], t))
    except (OSError, http.client.HTTPException, ValueError) as exc:
        if not stop.is_set():
            state["error"] = "%s: %s" % (type(exc).__name__, exc)
    finally:
        state["ended"] = not stop.is_set()
        conn.close()


def reached(sent, views):
    """{turn: arrival} for each turn of ``sent`` ({(board, serial, n): commit time}) that a view
    of ``views`` ([(board, serial, n, arrival)], as they came) shows: the first view of the same
    game whose last turn is that one or a later one."""
    by_game = {}
    for b, s, n, t in views:
        by_game.setdefault((b, s), []).append((t, n))
    out = {}
    for key in sent:
        for t, n in by_game.get(key[:2], ()):
            if n >= key[2]:
                out[key] = t
                break
    return out


def _rank(sorted_values, q):
    """The q-quantile by nearest rank."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def figures(n, sent, views, seconds, bound_ms, missed=0, stream_ended=False):
    """One count's row: ``sent`` {(board, serial, n): (commit time, due time)}, ``views`` as
    ``reached`` takes them, ``missed`` the turns the generators never sent."""
    commits = {k: v[0] for k, v in sent.items()}
    seen = reached(commits, views)
    lat = sorted(seen[k] - commits[k] for k in seen)
    late = sorted(max(0.0, c - d) for c, d in sent.values())
    row = {"boards": n, "turns": len(sent), "reached": len(lat), "lost": len(sent) - len(lat),
           "boards_lost": len({k[0] for k in commits if k not in seen}),
           "missed": missed, "per_second": round(len(sent) / seconds, 1),
           "stream_ended": stream_ended}
    if lat:
        row.update(median_ms=round(1000 * statistics.median(lat), 1),
                   p99_ms=round(1000 * _rank(lat, 0.99), 1), max_ms=round(1000 * lat[-1], 1))
    if late:
        row["gen_late_p99_ms"] = round(1000 * _rank(late, 0.99), 1)
        row["gen_late_max_ms"] = round(1000 * late[-1], 1)
    row["sustained"] = bool(lat) and row["lost"] == 0 and not missed and not stream_ended \
        and row["p99_ms"] <= bound_ms
    return row


def run_count(n, records_path, args, folder):
    from host_tools.hall.broker import free_port
    from host_tools.hall.room import Room
    room = Room.create(os.path.join(folder, "room-%d" % n), port=free_port(),
                       boards=["bb%05d" % i for i in range(n)])
    hall = subprocess.Popen([sys.executable, "-m", "host_tools", "hall", "run", room.path,
                             "--http-port", "0", "--spectators-port", "0"],
                            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    gens = []
    stop = threading.Event()
    got = []
    state = {"ended": False, "open": threading.Event(), "error": None}
    try:
        text = ""
        while "spectators:" not in text:
            line = hall.stdout.readline()
            if not line:
                raise RuntimeError("hall run stopped: " + text)
            text += line
        spect = re.search(r"spectators:\s+(\S+)", text).group(1)
        threading.Thread(target=lambda: [None for _ in hall.stdout], daemon=True).start()
        listener = threading.Thread(target=_listen, args=(spect, got, stop, state),
                                    daemon=True)
        listener.start()
        if not state["open"].wait(READ_TIMEOUT_S):
            raise RuntimeError("the spectators' stream did not open: %s" % state["error"])
        boards = room.boards
        per = -(-n // max(args.procs, -(-n // BOARDS_PER_PROC)))
        outs = []
        for k in range(0, n, per):
            # each generator writes to a file: a pipe nobody reads yet (the bench waits for
            # the generators one by one) would fill and stall it, and its boards' turns with it
            outs.append(os.path.join(folder, "gen-%d-%d.jsonl" % (n, k)))
            with open(outs[-1], "w") as f:
                gens.append(subprocess.Popen(
                    [sys.executable, "-m", "host_tools.hall.bench", "gen", room.path,
                     records_path, ",".join(boards[k:k + per]), "--interval", str(args.interval),
                     "--duration", str(args.seconds), "--seed", str(args.seed + k)],
                    cwd=REPO_ROOT, stdout=f, text=True))
        sent = {}
        missed = unready = 0
        for g, path in zip(gens, outs):
            g.wait(timeout=args.seconds + 180)
            if g.returncode:
                raise RuntimeError("a bench generator failed (exit %d)" % g.returncode)
            with open(path) as f:
                out = f.read()
            for line in out.splitlines():
                x = json.loads(line)
                if isinstance(x, dict):
                    missed += x["missed"]
                    unready += x["unready"]
                else:
                    b, s, num, t, due = x
                    sent[(b, s, num)] = (t, due)
        time.sleep(max(2.0, args.interval))           # the last turns reach the page
    finally:
        stop.set()
        for g in gens:
            if g.poll() is None:
                g.kill()
        hall.send_signal(signal.SIGTERM)
        try:
            hall.wait(timeout=30)
        except subprocess.TimeoutExpired:
            hall.kill()
    row = figures(n, sent, got, args.seconds, args.bound_ms, missed, state["ended"])
    row["unready"] = unready
    if state["ended"]:
        row["stream_error"] = state["error"]
    return row


def _line(row):
    return ("%5d boards: %5d turns sent (%5.1f/s), %5d reached the page, %d not (of %d boards), "
            "%d never sent; commit -> page median %s ms, p99 %s ms, max %s ms; generator late "
            "p99 %s ms, max %s ms; %d boards not connected when play began%s%s" % (
                row["boards"], row["turns"], row["per_second"], row["reached"], row["lost"],
                row["boards_lost"], row["missed"], row.get("median_ms"), row.get("p99_ms"),
                row.get("max_ms"), row.get("gen_late_p99_ms"), row.get("gen_late_max_ms"),
                row.get("unready", 0),
                "; the stream ended early (%s)" % row.get("stream_error")
                if row["stream_ended"] else "", "" if row["sustained"] else "  (not sustained)"))


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("hallbench"),
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--counts", default="50,100,200,400,800")
    ap.add_argument("--interval", type=float, default=5.0, help="seconds between a board's turns")
    ap.add_argument("--seconds", type=float, default=30.0, help="seconds of play per count")
    ap.add_argument("--bound-ms", type=float, default=1000.0,
                    help="the 99th percentile of commit -> page a sustained count stays within")
    ap.add_argument("--procs", type=int, default=4,
                    help="generator processes (at least one per %d boards)" % BOARDS_PER_PROC)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from host_tools.hall import bench
    folder = tempfile.mkdtemp(prefix="nardy-hallbench-")
    rows = []
    try:
        records_path = os.path.join(folder, "templates.jsonl")
        with open(records_path, "w") as f:
            for r in bench.templates():
                f.write(json.dumps(r) + "\n")
        for n in [int(x) for x in args.counts.split(",")]:
            row = run_count(n, records_path, args, folder)
            rows.append(row)
            if not args.json:
                print(_line(row), flush=True)
            if not row["sustained"]:
                break
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    best = max([r["boards"] for r in rows if r["sustained"]] or [0])
    if args.json:
        print(json.dumps({"rows": rows, "largest_sustained": best, "interval_s": args.interval,
                          "bound_ms": args.bound_ms}))
    else:
        print("largest count sustained: %d boards at a turn every %g s each (every turn on "
              "the page, p99 <= %g ms)" % (best, args.interval, args.bound_ms))
    return 0
