"""Serial fuzzing of the firmware: seeded streams of hostile command lines through the real
firmware (``firmware.main --sim --virtual-time``, under MicroPython in a Pico-sized heap or on
CPython), checking that it never crashes and answers every command line with exactly one
``ok`` or ``err``.

A stream is made of scenes: a few commands that lead the board into a phase (set-up, opening,
move, roll, doubled, doublet, flagged, resign, game over, match over), then fuzzed lines in that
phase: every command with good, bad and huge arguments, mutated commands, random bytes, invalid
UTF-8, control bytes and overlong lines. What a line should get is worked out here from the raw
bytes alone (not with the firmware's reader): a line is a command when, with the control bytes
dropped, it is not blank; its answer must name its first word.
"""

import json
import os
import random
import subprocess
import sys
import tempfile

from firmware.board.zonemap import ZONES, zone_name
from firmware.rules import variants
from host_tools.device import mpytree
from host_tools.bench.positions import generate as random_positions, to_board
from host_tools import REPO_ROOT

VARIANTS = tuple(variants.VARIANTS)     # every variant, in the rules core's order
OPTIONS = {"short": [("scoring", ("tric-trac", "backgammon")), ("cube", ("off", "on"))],
           "long": [("opening", ("rethrow", "use_opening_dice")),
                    ("head_exception", ("principle", "fixed_doubles", "doubles_principle")),
                    ("scoring", ("seed", "fnr", "koks")), ("block_check", ("final", "every_step")),
                    ("cube", ("off", "on"))],
           "persian": [("opening", ("high_die", "parity")),
                       ("hit_lift_priority", ("max_first", "lock_first")), ("cube", ("off", "on"))],
           "jacquet": [("scoring", ("tric-trac", "backgammon"))],
           "matador": [("scoring", ("tric-trac", "backgammon")), ("matador_forfeit", ("off", "on")),
                       ("opening_matador", ("on", "off"))],
           "backgammon": []}
ZONE_NAMES = [zone_name(z) for z in range(ZONES)]
PHASES = ("setup", "opening", "roll", "move", "doublet", "doubled", "over", "flagged", "resign",
          "match_over")
COMMANDS = ("status", "new", "match", "mode", "dice", "roll", "choose", "cube", "condone", "clock",
            "resign", "mix", "export", "help", "sim")
LINE_LIMIT = 200          # protocol.MAX_LINE: a longer line is refused whole


# -- what the firmware should answer, from the raw bytes ---------------------------------------------
def expected(stream):
    """For each command line of ``stream`` (bytes), the first word its answer must name, or ""
    when it is overlong or its first word cannot be told from a 40-character echo."""
    out = []
    for raw in stream.split(b"\n")[:-1]:
        kept = "".join("?" if b >= 128 else chr(b) for b in raw
                       if b >= 32 and b != 127 or b in (9, 13))
        if not kept.strip():
            continue
        words = kept.split()
        line = kept[:-1] if kept.endswith("\r") else kept      # the reader takes one off
        out.append("" if len(line) > LINE_LIMIT else words[0])
    return out


OUT_OF_MEMORY = "out of memory"     # how the protocol answers a command the heap could not hold


def is_bug(obj):
    """An err that reports a bug the protocol caught (``internal error``); the heap running out
    is answered apart (``out of memory``: see ``out_of_memory``)."""
    return obj.get("t") == "err" and obj.get("msg", "").startswith("internal error")


def out_of_memory(obj):
    """An err whose command ran out of heap (the firmware went on: the line was answered)."""
    return obj.get("t") == "err" and obj.get("msg", "").startswith(OUT_OF_MEMORY)


def check_answers(want, objs):
    """Compare the answers (ok/err objects in order) with what each command line should get;
    returns a list of problems (empty when every line got exactly its answer)."""
    answers = [o for o in objs if o.get("t") in ("ok", "err")]
    problems = []
    if len(answers) != len(want):
        problems.append("%d command lines, %d answers" % (len(want), len(answers)))
    for i, (w, a) in enumerate(zip(want, answers)):
        got = (a.get("cmd") or "").split()
        got = got[0] if got else ""
        if a["t"] == "ok":
            ok = got == w.lower()
        else:
            ok = not w or not got or w.startswith(got) or got.startswith(w[:40])
        if not ok:
            problems.append("line %d: answer names %r, the line starts %r" % (i, got, w[:40]))
            break
    internal = [a for a in answers if is_bug(a)]
    for a in internal[:5]:
        problems.append("internal error on %r: %s" % (a.get("cmd"), a.get("msg")))
    return problems


# -- the lines ---------------------------------------------------------------------------------------
class Fuzzer:
    """Draws scenes and fuzzed lines from one seeded generator."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.positions = [to_board(own, opp, self.rng.randint(0, 1))
                          for _, own, opp, _ in random_positions(40, seed=seed)]

    # words and numbers
    def number(self):
        r = self.rng
        pick = r.random()
        if pick < 0.5:
            return str(r.randint(0, 7))
        if pick < 0.6:
            return str(r.randint(-10, 100000))
        if pick < 0.7:
            return "9" * r.randint(10, 190)                   # huge: bignums on the board
        if pick < 0.8:
            return r.choice(["-0", "+5", "0x10", "1e9", "1.5", "nan", "inf", "-1", "00001",
                             "1_000", " 3", "\u0663".encode().decode("latin-1"), "", "--1"])
        if pick < 0.9:
            return str(r.choice([600000, 600001, 36000, 36001, 2 ** 30, 2 ** 31, 2 ** 63, 2 ** 64,
                                 -2 ** 31, 99, 100, 10000, 10001]))
        return r.choice(["a", "six", "\x00", "%s", "{}", "\\", "\"", "1 2 3 4"])

    def hexword(self, n):
        r = self.rng
        s = "".join(r.choice("0123456789abcdefABCDEF") for _ in range(n))
        if r.random() < 0.2 and n:
            i = r.randrange(n)
            s = s[:i] + r.choice("gz-+ x") + s[i + 1:]
        return s

    def position_hex(self):
        r = self.rng
        if r.random() < 0.8:
            board = r.choice(self.positions)
            return "".join("%x" % n for n in board) + str(r.randint(0, 1))
        return self.hexword(r.choice((53, 52, 54, 0, 1, 200)))

    def frame_hex(self):
        r = self.rng
        if r.random() < 0.7:
            return "".join("%02x" % r.choice((0, 0, 1, 2, 3, 5, 15, 255)) for _ in range(ZONES))
        return self.hexword(r.choice((56, 55, 57, 2)))

    def command(self):
        """One command with arguments good or bad, as text."""
        r = self.rng
        name = r.choice(COMMANDS + ("sim", "sim", "sim", "roll", "roll", "cube", "resign"))
        if name == "new":
            v = r.choice(VARIANTS + ("nosuch", "", "SHORT"))
            opts = []
            for key, values in OPTIONS.get(v, []):
                if r.random() < 0.3:
                    opts.append("%s=%s" % (key, r.choice(values + ("bogus",))))
            if r.random() < 0.1:
                opts.append(r.choice(["=", "x=", "=y", "k=v", "cube==on", "a" * 30 + "=1"]))
            return " ".join(["new", v] + opts)
        if name == "match":
            return "match " + self.number()
        if name == "mode":
            return "mode " + r.choice(["guide", "referee", "fast", ""])
        if name == "dice":
            return "dice " + r.choice(["auto", "manual", "x", ""])
        if name == "roll":
            if r.random() < 0.7:
                return "roll %d %d" % (r.randint(1, 6), r.randint(1, 6))
            return " ".join(["roll"] + [self.number() for _ in range(r.randint(0, 3))])
        if name == "choose":
            return "choose " + (str(r.randint(1, 6)) if r.random() < 0.6 else self.number())
        if name == "cube":
            return "cube " + r.choice(["double", "take", "drop", "double", "take", "beaver", ""])
        if name == "condone":
            return "condone " + r.choice(["on", "off", "maybe"])
        if name == "clock":
            if r.random() < 0.2:
                return "clock off"
            return " ".join(["clock"] + [self.number() for _ in range(r.randint(0, 3))])
        if name == "resign":
            return " ".join(["resign"] + [r.choice(["1", "2", "3", "accept", "refuse", "4",
                                                    self.number()])
                                          for _ in range(r.choice((0, 1, 1, 1, 2)))])
        if name == "mix":
            return "mix " + self.hexword(r.choice((2, 16, 64, 3, 66, 0)))
        if name == "sim":
            return "sim " + self.sim_action()
        return name + (" " + self.number() if r.random() < 0.1 else "")

    def sim_action(self):
        r = self.rng
        act = r.choice(("lift", "lift", "place", "place", "press", "press", "frame", "setup",
                        "position", "wait", "wait", "leds", "power_cut", "bogus"))
        zone = r.choice(ZONE_NAMES) if r.random() < 0.9 else r.choice(["0", "25", "bar2", "off", "x"])
        if act == "lift":
            return "lift %s" % zone + (" %d" % r.randint(0, 2) if r.random() < 0.3 else "")
        if act == "place":
            return "place %s" % zone + (" %d" % r.randint(0, 2) if r.random() < 0.5 else "")
        if act == "press":
            button = r.choice(("p0", "p1", "menu", "p2"))
            ms = r.choice(("", "", " 80", " 1500", " 0", " 10000", " 10001", " " + self.number()))
            return "press " + button + ms
        if act == "frame":
            return "frame " + self.frame_hex()
        if act == "position":
            return "position " + self.position_hex()
        if act == "wait":
            ms = r.choice((0, 5, 100, 200, 1000, 3000)) if r.random() < 0.95 else \
                r.choice((20000, 600000, 600001, -5, 10 ** 12))
            return "wait %d" % ms
        if act == "leds":
            return "leds " + r.choice(("off", "off", "off", "on", "x"))
        if act == "power_cut":
            return "power_cut" if r.random() < 0.3 else "setup"     # cuts are costly: fewer
        return act

    def mutate(self, text):
        """A command with bytes changed, inserted, deleted or its case flipped."""
        r = self.rng
        data = bytearray(text.encode("latin-1"))
        for _ in range(r.randint(1, 4)):
            op = r.randrange(5)
            i = r.randrange(len(data) + 1)
            if op == 0 and data:
                data[min(i, len(data) - 1)] = r.randrange(256)
            elif op == 1:
                data[i:i] = bytes([r.randrange(256)])
            elif op == 2 and data:
                del data[min(i, len(data) - 1)]
            elif op == 3:
                data[i:i] = r.choice((b"\xff", b"\xc3(", b"\xe2\x82", b"\xf0\x28\x8c\xbc",
                                      b"\xed\xa0\x80", b"\xc0\xaf", b"\r", b"\t", b"\x00", b"\x1b[A"))
            else:
                data = data.upper() if r.random() < 0.5 else data.swapcase()
        return bytes(data.replace(b"\n", b" "))

    def junk(self):
        """A line of random bytes, invalid UTF-8, or control bytes."""
        r = self.rng
        pick = r.random()
        n = r.choice((0, 1, 2, 5, 20, 80, 199, 200, 201, 250))
        if pick < 0.4:
            data = bytes(r.randrange(256) for _ in range(n))
        elif pick < 0.7:
            data = bytes(r.randrange(128, 256) for _ in range(n))
        elif pick < 0.85:
            data = bytes(r.choice(list(range(32)) + [127]) for _ in range(n))
        else:
            data = "".join(r.choice(("é", "中", "\U0001F3B2", "ß", "\u200b"))
                           for _ in range(n // 2 + 1)).encode()
        return data.replace(b"\n", b"")

    def overlong(self):
        r = self.rng
        n = r.choice((201, 202, 256, 1000, 8000, 20000)) if r.random() < 0.97 else 200000
        head = self.command().encode("latin-1") + b" "
        fill = r.choice((b"x", b"\xff", b"1", b" ", b"\x00a"))
        body = (head + fill * n)[:max(n, len(head))]
        if r.random() < 0.3:                  # a valid command's length padded by control bytes
            body = head + b"\x01" * n
        return body

    def fuzz_line(self):
        r = self.rng
        pick = r.random()
        if pick < 0.45:
            return self.command().encode("latin-1")
        if pick < 0.65:
            return self.mutate(self.command())
        if pick < 0.8:
            return self.junk()
        if pick < 0.86:
            return self.overlong()
        return b""

    def scene(self):
        """Commands that lead into a phase (in the order they are needed)."""
        r = self.rng
        goal = r.choice(PHASES + ("played", "doublet"))
        v = r.choice(VARIANTS + ("backgammon", "backgammon"))
        if goal == "doublet":
            v = "matador"
        elif goal == "doubled":
            v = "backgammon"
        elif goal == "played" and v == "long":
            v = "short"
        opts = " ".join("%s=%s" % (k, r.choice(vals)) for k, vals in OPTIONS[v]
                        if r.random() < 0.3 and k != "opening")
        out = ["new %s %s" % (v, opts)]
        if r.random() < 0.3:
            out.append("match %d" % r.choice((1, 1, 3, 5, 99)))
        if r.random() < 0.2:
            out.append("mode referee")
        if goal == "setup":
            return out
        out += ["dice manual", "sim setup", "sim wait 200"]
        if goal == "opening":
            return out
        a = r.randint(1, 6)
        out.append("roll %d %d" % (a, r.choice([d for d in range(1, 7) if d != a])))
        if goal == "move":
            return out
        if goal == "flagged":
            return out[:1] + ["mode referee"] + out[1:] + ["sim press p0", "sim wait 300",
                                                           "sim press p1", "sim wait 300"]
        if goal in ("played", "doublet"):      # White plays the opening 4-3 by hand
            return out[:-1] + ["roll 4 3"] + self.hands(v, opts, (4, 3)) + ["sim press p0",
                                                                           "sim wait 300"]
        out += ["sim position " + self.position_hex(), "sim wait 200"]
        if goal == "roll":
            return out
        if goal == "doubled":
            return out + ["cube double"]
        out.append("resign %d" % r.randint(1, 3))
        if goal == "resign":
            return out
        out.append("resign accept")
        if goal == "over":
            return out
        return out[:1] + ["match 1"] + out[1:]

    def hands(self, variant, opts, dice):
        """The sim lines of White's hand playing one legal opening play of ``dice``."""
        from firmware.rules import Turn, get_rules
        options = dict(w.split("=") for w in opts.split())
        rules = get_rules(variant, **options)
        plays = Turn(rules, rules.start_position(), dice, first_turn=True).plays()
        out = []
        for src, dst, _, _ in self.rng.choice(plays):
            out += ["sim lift %d" % rules.k_of(0, src), "sim wait 100",
                    "sim place %d" % rules.k_of(0, dst), "sim wait 100"]
        return out

    def stream(self, lines):
        """``lines`` fuzzed lines (bytes, each ending with a newline), scene after scene."""
        out = [b"sim leds off"]
        while len(out) < lines:
            out += [s.encode() for s in self.scene()]
            for _ in range(self.rng.randint(3, 30)):
                if self.rng.random() < 0.3:
                    out.append(b"status")     # shows the phase the next line meets
                out.append(self.fuzz_line())
        out = out[:lines - 1] + [b"status"]
        return b"".join(line + b"\n" for line in out)


# -- running the firmware ----------------------------------------------------------------------------
def phase_coverage(stream, objs):
    """(command, phase) pairs met: a command line right after a ``status`` line meets the phase
    that status reported (virtual time: nothing changes between)."""
    statuses = []
    answers = []
    for o in objs:
        if o.get("t") == "status":
            statuses.append(o.get("phase"))
        elif o.get("t") in ("ok", "err"):
            answers.append((o, statuses[-1] if statuses else None))
    lines = [ln for ln in stream.split(b"\n")[:-1] if ln.strip(b" \t\r")]
    pairs = set()
    prev_status = None
    for ln, (a, seen) in zip(lines, answers):
        word = ln.split()[0].decode("latin-1").lower() if ln.split() else ""
        if prev_status is not None and word in COMMANDS:
            pairs.add((word, prev_status))
        prev_status = seen if (word == "status" and a["t"] == "ok") else None
    return pairs


def run_stream(stream, micropython=True, heap=mpytree.HEAP, timeout=3600):
    """Feed ``stream`` to a fresh firmware process; returns (returncode, objects, stderr, bad):
    ``bad`` counts output lines that are not JSON objects."""
    if micropython:
        tree = mpytree.build()
        cmd = mpytree.firmware_command(heap, ["--virtual-time"])
        env = dict(os.environ, MICROPYPATH=".frozen")
        cwd = tree
    else:
        cmd = [sys.executable, "-m", "firmware.main", "--sim", "--virtual-time"]
        env = dict(os.environ)
        cwd = REPO_ROOT
    with tempfile.TemporaryFile() as fin:
        fin.write(stream)
        fin.seek(0)
        proc = subprocess.run(cmd, stdin=fin, capture_output=True, cwd=cwd, env=env,
                              timeout=timeout)
    objs = []
    bad = 0
    for raw in proc.stdout.split(b"\n"):
        if not raw.strip():
            continue
        try:
            objs.append(json.loads(raw))
        except ValueError:
            bad += 1
    return proc.returncode, objs, proc.stderr.decode("utf-8", "replace"), bad


def _batch(bseed, n, micropython, heap):
    """One batch: its stream, what each line should get, and what the firmware said."""
    stream = Fuzzer(bseed).stream(n)
    rc, objs, err, bad = run_stream(stream, micropython, heap)
    return stream, expected(stream), rc, objs, err, bad


def fuzz(lines, seed, batch=20000, micropython=True, heap=mpytree.HEAP, report=None, jobs=1):
    """Run ``lines`` fuzzed lines in batches of ``batch`` (one firmware process each, batch i
    seeded with ``seed * 1000003 + i``, ``jobs`` processes at a time); returns a summary dict
    (the same for any ``jobs``). ``report(summary)`` is called after each batch."""
    from concurrent.futures import ThreadPoolExecutor
    summary = {"seed": seed, "lines": 0, "command_lines": 0, "answers": 0, "crashes": 0,
               "unanswered": 0, "internal_errors": 0, "not_json": 0, "batches": 0,
               "power_cuts": 0, "overlong": 0, "phases": {}, "commands_in_phases": 0,
               "out_of_memory": {},
               "failures": []}
    pairs = set()
    plan = []
    done = 0
    while done < lines:
        n = min(batch, lines - done)
        plan.append((len(plan), seed * 1000003 + len(plan), n))
        done += n
    if micropython:
        mpytree.build()           # once, before the batches run side by side
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        runs = pool.map(lambda job: _batch(job[1], job[2], micropython, heap), plan)
        for (i, bseed, n), (stream, want, rc, objs, err, bad) in zip(plan, runs):
            problems = check_answers(want, objs)
            answers = sum(1 for o in objs if o.get("t") in ("ok", "err"))
            summary["lines"] += stream.count(b"\n")
            summary["command_lines"] += len(want)
            summary["answers"] += answers
            summary["unanswered"] += max(0, len(want) - answers)
            summary["internal_errors"] += sum(1 for o in objs if is_bug(o))
            for o in objs:
                if out_of_memory(o):
                    cmd = (o.get("cmd") or "").split()
                    word = cmd[0] if cmd else "?"
                    summary["out_of_memory"][word] = summary["out_of_memory"].get(word, 0) + 1
                elif o.get("t") == "status":
                    summary["phases"][o["phase"]] = summary["phases"].get(o["phase"], 0) + 1
            summary["not_json"] += bad
            summary["overlong"] += sum(1 for w in want if not w)
            summary["power_cuts"] += sum(1 for o in objs if o.get("t") == "hello") - 1
            pairs |= phase_coverage(stream, objs)
            crashed = rc != 0 or "Traceback" in err
            if crashed:
                summary["crashes"] += 1
            if crashed or problems or bad:
                summary["failures"].append({
                    "batch": i, "batch_seed": bseed, "returncode": rc, "stderr": err[-1500:],
                    "problems": problems[:5],
                    "replay": "python -m host_tools fuzz serial --batch-seed %d --lines %d%s" % (
                        bseed, n, "" if micropython else " --cpython")})
            summary["batches"] += 1
            if report is not None:
                report(summary)
    summary["commands_in_phases"] = len(pairs)
    summary["phase_pairs"] = sorted("%s@%s" % p for p in pairs)
    return summary


def run_batch(bseed, lines, micropython=True, heap=mpytree.HEAP):
    """One batch again from its own seed (what a failure prints); returns its problems."""
    stream = Fuzzer(bseed).stream(lines)
    rc, objs, err, bad = run_stream(stream, micropython, heap)
    problems = check_answers(expected(stream), objs)
    if rc != 0 or "Traceback" in err:
        problems.insert(0, "exit status %d\n%s" % (rc, err[-3000:]))
    if bad:
        problems.append("%d output lines are not JSON" % bad)
    return problems
