"""Benchmark the hall: how many boards one station handles at a committed turn every 5 s each, and the latency from commit to the spectators' page.

python -m host_tools hallbench [--counts 50,100,200,400,800] [--interval 5] [--seconds 30]
                               [--procs 4] [--seed N] [--json]
For each count it starts a fresh hall (`hall run`: Mosquitto, the station, its pages) and that
many bench boards (host_tools/hall/bench.py: real games sealed under each board's own key, one
MQTT login each, spread over --procs generator processes) committing a turn every --interval
seconds each for --seconds; it reads the spectators' page's event stream and prints, per count,
the turns committed, the turns that reached the page, and the latency from commit to page
(median, 99th percentile, worst). A count is sustained when every turn reached the page and the
99th percentile stays under the interval; the counts stop after the first one not sustained.
"""

import argparse
import http.client
import json
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
from host_tools import REPO_ROOT



def _listen(url, got, stop):
    """The spectators' event stream: (board, serial, n, arrival) of every view."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    conn.request("GET", "/api/stream")
    resp = conn.getresponse()
    while not stop.is_set():
        try:
            line = resp.fp.readline()
        except (OSError, http.client.HTTPException):
            if stop.is_set():
                break
            continue
        if not line:
            break
        if line.startswith(b"data: "):
            t = time.time()
            msg = json.loads(line[6:])
            v = msg.get("view")
            if msg.get("t") == "view" and v and v.get("n"):
                got.append((v["board"], v["serial"], v["n"], t))
    conn.close()


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
    try:
        text = ""
        while "spectators:" not in text:
            line = hall.stdout.readline()
            if not line:
                raise RuntimeError("hall run stopped: " + text)
            text += line
        spect = re.search(r"spectators:\s+(\S+)", text).group(1)
        threading.Thread(target=lambda: [None for _ in hall.stdout], daemon=True).start()
        listener = threading.Thread(target=_listen, args=(spect, got, stop), daemon=True)
        listener.start()
        time.sleep(0.5)
        boards = room.boards
        per = -(-n // args.procs)
        for k in range(0, n, per):
            gens.append(subprocess.Popen(
                [sys.executable, "-m", "host_tools.hall.bench", "gen", room.path, records_path,
                 ",".join(boards[k:k + per]), "--interval", str(args.interval), "--duration",
                 str(args.seconds), "--seed", str(args.seed + k)],
                cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True))
        sent = {}
        for g in gens:
            out, _ = g.communicate(timeout=args.seconds + 180)
            for line in out.splitlines():
                b, s, num, t = json.loads(line)
                sent[(b, s, num)] = t
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
    seen = {}
    for b, s, num, t in got:
        seen.setdefault((b, s, num), t)
    lat = sorted(seen[k] - sent[k] for k in sent if k in seen)
    out = {"boards": n, "turns": len(sent), "reached": len(lat),
           "per_second": round(len(sent) / args.seconds, 1)}
    if lat:
        out.update(median_ms=round(1000 * statistics.median(lat), 1),
                   p99_ms=round(1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))], 1),
                   max_ms=round(1000 * lat[-1], 1))
    out["sustained"] = bool(lat) and len(lat) == len(sent) and \
        out["p99_ms"] < 1000 * args.interval
    return out


def main(argv):
    ap = argparse.ArgumentParser(prog="python -m host_tools hallbench",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--counts", default="50,100,200,400,800")
    ap.add_argument("--interval", type=float, default=5.0, help="seconds between a board's turns")
    ap.add_argument("--seconds", type=float, default=30.0, help="seconds of play per count")
    ap.add_argument("--procs", type=int, default=4, help="generator processes")
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
                print("%5d boards: %5d turns (%5.1f/s), %5d reached the page; commit -> page "
                      "median %s ms, p99 %s ms, max %s ms%s" % (
                          row["boards"], row["turns"], row["per_second"], row["reached"],
                          row.get("median_ms"), row.get("p99_ms"), row.get("max_ms"),
                          "" if row["sustained"] else "  (not sustained)"), flush=True)
            if not row["sustained"]:
                break
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    best = max([r["boards"] for r in rows if r["sustained"]] or [0])
    if args.json:
        print(json.dumps({"rows": rows, "largest_sustained": best, "interval_s": args.interval}))
    else:
        print("largest count sustained: %d boards at a turn every %g s each" % (best,
                                                                             args.interval))
    return 0
