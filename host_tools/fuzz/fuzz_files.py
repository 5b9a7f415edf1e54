"""Fuzzing of the host tools' readers: match files (``replay``), legal-move requests (``legal``),
hardware descriptions (``board.json``) and the board's game records (``export``), from seeded
mutations of real inputs.

Each case must end in an answer or a refusal with a reason, never another exception, and in
bounded work: the work is counted, not timed (rules-core calls per replayed roll, answer lines
per request line), so a slow machine cannot make the check flaky; a generous wall-clock
timeout per case only guards against a hang. Every case is rebuilt from ``(seed, i)``.
"""

import copy
import io
import json
import os
import random
import time
from host_tools import REPO_ROOT

GAMES = os.path.join(REPO_ROOT, "tests", "data")
CALLS_PER_ROLL = 2000         # rules-core calls a roll may cost (a few hundred in practice)
HANG_S = 60                   # wall clock per case: only a hang guard


class Failure(Exception):
    """A case the tool did not handle: an escaped exception or unbounded work."""


def _mat_files():
    out = []
    for folder, _, files in os.walk(GAMES):
        for f in sorted(files):
            if f.endswith((".mat", ".txt")) and "LICENSES" not in folder:
                out.append(os.path.join(folder, f))
    return sorted(out)


# -- mutations ---------------------------------------------------------------------------------------
def mutate_text(rng, data):
    """Bytes of a text file changed as a careless editor, a bad transfer or an attacker would."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(10)
        i = rng.randrange(len(data) + 1)
        if op == 0 and data:                                   # flip a byte
            data[min(i, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:                                          # insert junk
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
        elif op == 2 and data:                                 # delete a stretch
            del data[i:i + rng.randint(1, 200)]
        elif op == 3:                                          # duplicate a stretch
            j = rng.randrange(len(data) + 1)
            data[i:i] = data[j:j + rng.randint(1, 400)]
        elif op == 4:                                          # a huge number
            data[i:i] = str(rng.choice([10 ** 30, 2 ** 64, 99999, -1, 0])).encode()
        elif op == 5:                                          # a long line
            data[i:i] = rng.choice([b"x", b"1/2 ", b" ", b"\xff"]) * rng.choice([1000, 100000])
        elif op == 6:                                          # invalid UTF-8, control bytes
            data[i:i] = rng.choice([b"\xff\xfe", b"\xc3(", b"\x00", b"\r", b"\x1b[2J"])
        elif op == 7:                                          # truncate
            del data[i:]
        elif op == 8:                                          # a play of many movements
            data[i:i] = b" " + b" ".join([b"6/5", b"13/7(4)", b"bar/22*/16"][rng.randrange(3)]
                                         for _ in range(rng.choice([5, 40, 3000])))
        else:                                                  # swap two lines
            lines = data.split(b"\n")
            if len(lines) > 2:
                a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[a], lines[b] = lines[b], lines[a]
                data = bytearray(b"\n".join(lines))
    return bytes(data)


# -- replay ------------------------------------------------------------------------------------------
class _Counted:
    """Wraps the rules core's Turn for replay: counts constructions and step queries."""

    calls = 0

    @classmethod
    def make(cls, base):
        class Turn(base):
            def __init__(self, *a, **k):
                cls.calls += 1
                base.__init__(self, *a, **k)

            def targets(self, src):
                cls.calls += 1
                return base.targets(self, src)

            def check(self, final):
                cls.calls += 1
                return base.check(self, final)
        return Turn


def replay_case(data, name="<fuzz>"):
    """Parse and replay one file's bytes: ('error', why) or ('report', rolls, calls); raises
    Failure for anything else or for unbounded work."""
    from host_tools.records import matfile, replay
    base = replay.Turn
    replay.Turn = _Counted.make(base)
    _Counted.calls = 0
    try:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
        try:
            match = matfile.parse_text(text, name)
        except matfile.MatError as exc:
            return ("error", str(exc))
        report = replay.replay_match(match)
        rolls = sum(1 for g in match["games"] for a in g["actions"] if a["kind"] == "roll")
        if _Counted.calls > CALLS_PER_ROLL * (rolls + 1):
            raise Failure("%d rules-core calls for %d rolls" % (_Counted.calls, rolls))
        json.dumps(report)
        return ("report", rolls, _Counted.calls)
    except Failure:
        raise
    except Exception as exc:                                   # noqa: BLE001
        raise Failure("%s: %s" % (type(exc).__name__, exc))
    finally:
        replay.Turn = base


def mutate_plays(rng, data):
    """The file with some plays changed but still readable: other dice, other points, more
    movements, a cube action moved, so the replay (not the parser) meets them."""
    import re
    lines = data.split(b"\n")
    rolls = [i for i, ln in enumerate(lines) if re.search(rb"[1-6][1-6]:", ln)]
    for _ in range(rng.randint(1, 5)):
        if not rolls:
            break
        i = rng.choice(rolls)
        ln = lines[i]
        op = rng.randrange(5)
        if op == 0:
            ln = re.sub(rb"[1-6][1-6]:", lambda m: b"%d%d:" % (rng.randint(1, 6), rng.randint(1, 6)),
                        ln, count=1)
        elif op == 1:
            ln = re.sub(rb"\b(1?\d|2[0-4])/", lambda m: b"%d/" % rng.randint(1, 25), ln)
        elif op == 2:
            extra = b" ".join(b"%d/%d" % (a, a - rng.randint(1, 6))
                              for a in (rng.randint(7, 24) for _ in range(rng.choice([1, 3, 9, 400]))))
            ln = re.sub(rb"([1-6][1-6]:)", lambda m: m.group(1) + b" " + extra, ln, count=1)
        elif op == 3:
            ln = ln.replace(b"/", b"/", 1) + b"  Doubles => %d" % rng.choice([2, 3, 4, 64])
        else:
            ln = re.sub(rb"(\d+)/(\d+)", lambda m: m.group(2) + b"/" + m.group(1), ln, count=1)
        lines[i] = ln
    return b"\n".join(lines)


def replay_inputs(rng):
    files = _mat_files()
    path = rng.choice(files)
    with open(path, "rb") as f:
        data = f.read()
    if rng.random() < 0.6:
        data = mutate_plays(rng, data)
    else:
        data = mutate_text(rng, data)
    return os.path.relpath(path, REPO_ROOT), data


# -- legal -------------------------------------------------------------------------------------------
def legal_request(rng):
    """One request line (bytes), good or hostile."""
    from host_tools.bench.positions import generate
    pick = rng.random()
    _, own, opp, dice = generate(1, seed=rng.randrange(10 ** 9))[0]
    points = [own[p] if own[p] else -opp[25 - p] for p in range(1, 25)]
    req = {"variant": rng.choice(["backgammon", "short", "long", "persian", "jacquet", "matador",
                                  "nosuch", 7]),
           "points": points, "bar": [own[25], opp[25]], "off": [own[0], opp[0]],
           "dice": list(dice)}
    if pick < 0.3:
        return json.dumps(req).encode()
    if pick < 0.6:                                            # a field made hostile
        key = rng.choice(["points", "bar", "off", "dice", "first_turn", "options", "variant"])
        req[key] = rng.choice([None, [], {}, "x", 10 ** 40, -1, [1e308, 2], [[1, 1]] * 24,
                               [10 ** 30] * 24, {"cube": ["on"]}, True, [0.5, 1], "\u0000"])
        return json.dumps(req).encode()
    if pick < 0.75:
        return mutate_text(rng, json.dumps(req).encode()).replace(b"\n", b" ")
    if pick < 0.85:
        return rng.choice([b"[" * 3000 + b"]" * 3000, b"{" * 2000, b"\xff\xfe\xfd",
                           b"x" * 100000, b"1" * 5000, b"[" * 900 + b"]" * 900, b"null",
                           b'{"variant": "' + b"a" * 4000 + b'"}'])
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, 300))).replace(b"\n", b"")


def legal_case(lines):
    """Serve request lines (bytes) on CPython; returns the answers; raises Failure unless every
    non-blank line got exactly one JSON answer."""
    from firmware.rules.legal_cli import serve
    data = b"".join(line + b"\n" for line in lines)
    out = io.StringIO()
    try:
        serve(io.BytesIO(data), out)
    except Exception as exc:                                   # noqa: BLE001
        raise Failure("serve raised %s: %s" % (type(exc).__name__, exc))
    answers = out.getvalue().splitlines()
    _check_answers(lines, answers, "")
    return answers


def _check_answers(lines, answers, who):
    """Raise Failure unless every non-blank request line got one answer, legal or error."""
    want = sum(1 for line in lines if line.strip(b" \t\r\x0b\x0c"))
    if len(answers) != want:
        raise Failure("%s%d request lines, %d answers" % (who, want, len(answers)))
    for a in answers:
        obj = json.loads(a)
        if "legal" not in obj and "error" not in obj:
            raise Failure("%san answer is neither legal nor error: %s" % (who, a[:100]))


def legal_micropython(lines, heap="230K"):
    """The same lines through ``legal --micropython`` (the firmware's rules core under the unix
    port in a Pico-sized heap): raises Failure unless it ends normally with one JSON answer per
    non-blank line; returns the number of answers."""
    import subprocess
    import sys
    data = b"".join(line + b"\n" for line in lines)
    proc = subprocess.run([sys.executable, "-m", "host_tools", "legal", "--micropython",
                           "--heap=" + heap], input=data, capture_output=True, cwd=REPO_ROOT,
                          timeout=HANG_S * 20)
    if proc.returncode != 0:
        raise Failure("legal --micropython exit %d: %s" % (proc.returncode,
                                                           proc.stderr.decode("latin-1")[-800:]))
    answers = proc.stdout.decode("utf-8").splitlines()
    _check_answers(lines, answers, "micropython: ")
    return len(answers)


# -- board.json ---------------------------------------------------------------------------------------
def board_inputs(rng):
    """A board.json text: the real one with fields changed, removed, retyped, or its text mangled."""
    with open(os.path.join(REPO_ROOT, "hardware", "board.json"), "rb") as f:
        raw = f.read()
    if rng.random() < 0.25:
        return mutate_text(rng, raw)
    desc = json.loads(raw)
    desc["front_end"] = rng.choice(("digital", "analog"))    # both builds, whichever is the default
    for _ in range(rng.randint(1, 3)):
        path = []
        node = desc
        while isinstance(node, (dict, list)) and node and rng.random() < 0.8:
            key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
            path.append((node, key))
            node = node[key]
        if not path:
            continue
        parent, key = path[-1]
        what = rng.random()
        if what < 0.2 and isinstance(parent, dict):
            del parent[key]
        else:
            parent[key] = rng.choice([0, -1, 1, 255, 256, 10 ** 12, 0.5, -0.0, None, "", "x",
                                      [], {}, True, [0, 0], [[0, 7]] * 2, copy.deepcopy(node)])
    return json.dumps(desc).encode()


def board_case(data, tmp):
    """Load one description: ('refused', message) or ('built', slots) after building the
    simulated hardware from it; raises Failure for any other exception."""
    from firmware import sim
    sim.install()
    from firmware.drivers import board_config
    from firmware.sim import world as simworld
    path = os.path.join(tmp, "board.json")
    with open(path, "wb") as f:
        f.write(data)
    try:
        cfg = board_config.load(path)
    except board_config.BoardConfigError as exc:
        msg = str(exc)
        if not msg.startswith(path):
            raise Failure("a refusal that names no file: %s" % msg)
        return ("refused", msg)
    except Exception as exc:                                   # noqa: BLE001
        raise Failure("load raised %s: %s" % (type(exc).__name__, exc))
    try:
        hw = simworld.build(path=path, storage_root=tmp)
        hw.zones.poll(hw.ticks_ms())
        hw.leds.clear()
        hw.leds.write()
        hw.buttons.poll(hw.ticks_ms())
    except Exception as exc:                                   # noqa: BLE001
        raise Failure("accepted, but the hardware cannot be built: %s: %s"
                      % (type(exc).__name__, exc))
    return ("built", cfg.n_slots)


# -- records (export) ---------------------------------------------------------------------------------
EXPORT_MASTER = bytes(range(32))     # the director's secret the fuzzed match was played under
_RECORDS: list = []


def _base_records():
    """Two games of a backgammon match with the cube, played once on the simulated board
    provisioned by EXPORT_MASTER (cached)."""
    if not _RECORDS:
        from host_tools.soak.soakplayer import record_match
        _RECORDS.extend(record_match("backgammon", 5, 17, double=0.3, games=2,
                                     provision=EXPORT_MASTER))
    return [copy.deepcopy(r) for r in _RECORDS]


def _reseal(rec, lines):
    """rec with ``lines`` sealed again under the board's key and its tag made to match: what an
    insider who holds the key could forge, so the replay itself must refuse what is wrong."""
    from firmware.board.identity import Mac, derive_key
    mac = Mac(derive_key(EXPORT_MASTER, rec["board"]))
    prefix = "%s|%d|" % (rec["board"], rec["serial"])
    sealed = [text + "|" + mac.hex(prefix, text) for text in lines]
    tag = mac.hex("export|", rec["board"], "|", str(rec["serial"]), "|", str(len(sealed)), "|",
                  sealed[-1][-32:] if sealed else "")
    return dict(rec, lines=sealed, lines_n=len(sealed), tag=tag, sig=_resign(rec, sealed))


def _resign(rec, lines):
    # the board's Ed25519 signature over these lines, made again (the signing key derives from
    # the board's key, which the insider holds)
    import hashlib

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from firmware.board import director
    from firmware.board.identity import Mac, derive_key
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode("utf-8", "surrogatepass") + b"\n")
    seed = director.sign_seed(Mac(derive_key(EXPORT_MASTER, rec["board"])), rec["board"])
    text = director.signed_text(rec["board"], rec["serial"], len(lines), h.hexdigest())
    return Ed25519PrivateKey.from_private_bytes(seed).sign(text.encode()).hex()


def _mutate_json(rng, node):
    """A JSON value with one field deep inside changed, removed or retyped."""
    path = []
    while isinstance(node, (dict, list)) and node and rng.random() < 0.7:
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        path.append((node, key))
        node = node[key]
    if path:
        parent, key = path[-1]
        if rng.random() < 0.2 and isinstance(parent, dict):
            del parent[key]
        else:
            parent[key] = rng.choice([0, -1, 1, 2, 6, 7, 25, 26, 10 ** 12, 0.5, None, "", "x",
                                      [], {}, True, [0, 0], [[0, 7]] * 2, [[1, 1]] * 5,
                                      copy.deepcopy(node), str(node)])


def export_inputs(rng):
    """(bytes of a record file, keyring) from the real match: its protocol log's text mangled,
    a record's fields retyped, or its lines edited and sealed again with the board's key."""
    from host_tools.records.export import Keyring
    recs = _base_records()
    keyring = Keyring(EXPORT_MASTER)
    how = rng.random()
    if how < 0.3:                                       # the saved protocol log, mangled
        log = []
        tail = ("head", "tag", "lost", "ended", "damaged", "sig", "unsigned")
        for r in recs:
            start = dict((k, v) for k, v in r.items()
                         if k not in tail + ("lines", "lines_n", "events"))
            log.append(json.dumps(dict(start, t="record")))
            log += [json.dumps({"t": "rl", "l": line}) for line in r["lines"]]
            end = dict((k, r.get(k)) for k in tail)
            log.append(json.dumps(dict(end, t="record_end", lines=r["lines_n"])))
        return mutate_text(rng, "\n".join(log).encode()), keyring
    rec = rng.choice(recs)
    if how < 0.5:                                       # the record's own fields
        _mutate_json(rng, rec)
        return json.dumps(recs).encode(), keyring
    texts = [line.rsplit("|", 1)[0] for line in rec["lines"]]
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(texts))
        op = rng.random()
        if op < 0.6:
            try:
                obj = json.loads(texts[i])
            except ValueError:
                continue
            _mutate_json(rng, obj)
            texts[i] = json.dumps(obj)
        elif op < 0.7:
            del texts[i]
        elif op < 0.8:
            texts.insert(i, texts[rng.randrange(len(texts))])
        elif op < 0.9:
            j = rng.randrange(len(texts))
            texts[i], texts[j] = texts[j], texts[i]
        else:
            texts[i] = mutate_text(rng, texts[i].encode()).decode("utf-8", "replace")
    recs[recs.index(rec)] = _reseal(rec, texts)
    return json.dumps(recs).encode(), keyring


def export_case(data, keyring, tmp):
    """Read and export one record file: ('refused', why) or ('written', notes); raises Failure for
    anything else (a traceback where the reader should get a reason)."""
    from host_tools.records import export as ex
    path = os.path.join(tmp, "records.json")
    with open(path, "wb") as f:
        f.write(data)
    try:
        records = ex.load_records(path)
        text, notes = ex.export(records, "mat", keyring=keyring)
        ex.export(records, "sgf", keyring=keyring)
    except ex.ExportError as exc:
        if not str(exc):
            raise Failure("a refusal without a reason")
        return ("refused", str(exc))
    except Exception as exc:                                   # noqa: BLE001
        raise Failure("%s: %s" % (type(exc).__name__, exc))
    if " Game 1" not in text and " Game 2" not in text:
        raise Failure("written, but no game in the output")
    return ("written", len(notes))


# -- the runs -----------------------------------------------------------------------------------------
def run(kind, count, seed, report=None, micropython=False):
    """``count`` cases of ``kind`` ("replay", "legal", "board", "export") from ``seed``; returns a summary
    with the failures (each with the seed and index that rebuild it). ``micropython``: the
    legal cases' lines also go, all in one run, through ``legal --micropython``."""
    mp_lines = []
    import tempfile
    summary = {"kind": kind, "seed": seed, "cases": 0, "failures": [], "outcomes": {},
               "max_calls_per_roll": 0.0, "slowest_s": 0.0}
    tmp = tempfile.mkdtemp(prefix="fuzz-files-")
    try:
        for i in range(count):
            rng = random.Random(seed * 1000003 + i)
            t0 = time.time()
            try:
                if kind == "replay":
                    name, data = replay_inputs(rng)
                    out = replay_case(data, name)
                    if out[0] == "report":
                        summary["max_calls_per_roll"] = max(summary["max_calls_per_roll"],
                                                            out[2] / (out[1] + 1))
                elif kind == "legal":
                    lines = [legal_request(rng) for _ in range(rng.randint(1, 8))]
                    mp_lines += lines
                    out = ("answered", len(legal_case(lines)))
                elif kind == "board":
                    out = board_case(board_inputs(rng), tmp)
                elif kind == "export":
                    out = export_case(*export_inputs(rng), tmp)
                else:
                    raise ValueError("kind is replay, legal, board or export")
                summary["outcomes"][out[0]] = summary["outcomes"].get(out[0], 0) + 1
            except Failure as exc:
                summary["failures"].append({"case": i, "why": str(exc)[:500]})
            dt = time.time() - t0
            summary["slowest_s"] = max(summary["slowest_s"], round(dt, 3))
            if dt > HANG_S:
                summary["failures"].append({"case": i, "why": "took %.0f s (hang guard)" % dt})
            summary["cases"] += 1
            if report is not None:
                report(summary)
        if kind == "legal" and micropython:
            try:
                summary["micropython_answers"] = legal_micropython(mp_lines)
            except Failure as exc:
                summary["failures"].append({"case": "micropython", "why": str(exc)[:800]})
    finally:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
    return summary
