"""The board's 8-bit networks: a float ``Net`` quantized into a ``.n8`` file the RP2040 reads.

Format (little-endian; every section starts 4-byte aligned)::

    offset  size     field
    0       4        magic b"NRD8"
    4       1        version (2)
    5       1        O, outputs
    6       1        H, hidden units
    7       1        s1 (int8): w1 is stored as round(w1 * 2**s1)
    8       2        I, inputs (205)
    10      1        s2 (int8): w2 is stored as round(w2 * 2**s2)
    11      5        reserved (0)
    16      I*H      w1, int8, row-major (input i, hidden j) at 16 + i*H + j
    ..      4*H      b1, int32, round(b1 * 2**(8 + s1)): the accumulator's units
    ..      H*O      w2, int8, row-major (hidden j, output k)
    ..      4*O      b2, int32, round(b2 * 2**(15 + s2))
    ..      2*513    sigmoid table, uint16: T[i] = round(32768 * sigmoid(i / 64)), i = 0..512

The arithmetic it is made for (firmware/engine/arith.py, host_tools/engine/int8.py): inputs are
the float features of host_tools/engine/encode.py times 256, rounded (Q8 integers, exact: no
feature lands on a half); a hidden unit's sum z = b1 + sum x*w1 (units 2**-(8+s1)) is shifted
to units of 2**-12, u (right by s1 - 4, or left), and its sigmoid read from the table with
linear interpolation: for u >= 0, i = u >> 6 and f = u & 63, T[i] + ((T[i+1] - T[i]) * f >> 6)
(T[512] from i >= 512 on), for u < 0 the mirror 32768 - S(-u); h is in Q15. An output's sum
b2 + sum h*w2 (units 2**-(15+s2)) the same way, shifted right by s2 + 3: outputs in Q15. Scales
are per layer and powers of two, so every step is an integer shift, and every sum fits 32 bits.

Shipped as ``firmware/engine/nets/<variant>.py``, one bytes constant ``DATA`` per variant: deploy
and mip send it like every module, and a frozen build keeps the bytes in flash (no RAM for the
weights; imported from the filesystem they take their size in RAM). A raw ``.n8`` file of the
same bytes loads too (``firmware.engine.net8.load(rules, path)``).
``python -m host_tools.engine.quantize [--weights DIR] [--out DIR] [--raw] [VARIANT ...]`` writes
them for every variant with shipped float weights (then ``python -m host_tools mip`` refreshes
package.json).
"""

import argparse
import math
import os
import struct
import sys

import numpy as np

MAGIC = b"NRD8"
VERSION = 2
HEADER = 16
TABLE = 513
NETS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "firmware", "engine", "nets")


def _shift(w):
    """The largest s with max|w| * 2**s <= 127 (at most 14, at least -1)."""
    m = float(np.max(np.abs(w))) if w.size else 0.0
    s = 14 if m == 0.0 else min(14, int(math.floor(math.log2(127.0 / m))))
    if s < -1:
        raise ValueError("weights too large for the 8-bit format (max |w| = %g)" % m)
    return s


def table():
    """The sigmoid table's 513 entries over 0..8 (the lower half is its mirror)."""
    z = np.arange(TABLE) / 64.0
    return np.rint(32768.0 / (1.0 + np.exp(-z))).astype(np.uint16)


def quantize(net):
    """The .n8 bytes of float ``net`` (host_tools.engine.net.Net)."""
    w1, b1, w2, b2 = (np.asarray(a, dtype=np.float64) for a in (net.w1, net.b1, net.w2, net.b2))
    i, h = w1.shape
    o = w2.shape[1]
    s1, s2 = _shift(w1), _shift(w2)
    head = MAGIC + struct.pack("<BBBbHb5x", VERSION, o, h, s1, i, s2)
    parts = [head,
             np.clip(np.rint(w1 * 2.0 ** s1), -127, 127).astype("<i1").tobytes(),
             np.rint(b1 * 2.0 ** (8 + s1)).astype("<i4").tobytes(),
             np.clip(np.rint(w2 * 2.0 ** s2), -127, 127).astype("<i1").tobytes(),
             np.rint(b2 * 2.0 ** (15 + s2)).astype("<i4").tobytes(),
             table().astype("<u2").tobytes()]
    return b"".join(parts)


def module_text(variant, data):
    """The shipped module of a network's bytes: a docstring and ``DATA``."""
    lines = ['"""The 8-bit network of %s (host_tools/engine/quantize.py wrote it)."""' % variant, "",
             "DATA = ("]
    for i in range(0, len(data), 48):
        lines.append("    %r" % bytes(data[i:i + 48]))
    lines.append(")")
    return "\n".join(lines) + "\n"


def write(variant, net, folder=None, raw=False):
    """Write ``<folder>/<variant>.py`` (default firmware/engine/nets), or with ``raw`` the
    bare ``<variant>.n8``; returns its path."""
    folder = folder or NETS
    os.makedirs(folder, exist_ok=True)
    data = quantize(net)
    path = os.path.join(folder, variant + (".n8" if raw else ".py"))
    with open(path + ".tmp", "wb") as f:
        f.write(data if raw else module_text(variant, data).encode())
    os.replace(path + ".tmp", path)
    return path


def write_all(variants=None, weights_dir=None, folder=None, raw=False):
    """Quantize every variant with shipped float weights; returns [(variant, path, bytes)]."""
    from firmware.rules.variants import VARIANTS
    from host_tools.engine import weights
    done = []
    for v in variants or sorted(VARIANTS):
        try:
            net, _ = weights.load(v, weights_dir)
        except LookupError:
            continue
        p = write(v, net, folder, raw)
        done.append((v, p, os.path.getsize(p)))
    return done


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m host_tools.engine.quantize", description=__doc__.splitlines()[0])
    ap.add_argument("variants", nargs="*")
    ap.add_argument("--weights", help="folder of the float weights (default host_tools/engine/weights)")
    ap.add_argument("--out", help="folder of the .n8 files (default firmware/engine/nets)")
    ap.add_argument("--raw", action="store_true", help="bare .n8 files instead of modules")
    a = ap.parse_args(argv)
    done = write_all(a.variants or None, a.weights, a.out, a.raw)
    for v, p, n in done:
        print("%-11s %6d bytes  %s" % (v, n, p))
    if not done:
        print("no float weights found", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
