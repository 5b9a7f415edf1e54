"""Ed25519 signature checking (RFC 8032, section 5.1.7) in pure Python: the host's verifier where the ``cryptography`` package is not installed.

Textbook and not fast (a few milliseconds a signature on CPython), which is plenty for checking
records; the board's own signing code is ``firmware.board.ed25519``. Like OpenSSL's check, the
point ``[s]B - [k]A`` is encoded and compared with the signature's R byte for byte.
"""

import hashlib

P = 2 ** 255 - 19
L = 2 ** 252 + 27742317777372353535851937790883648493       # the base point's order
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
NEUTRAL = (0, 1, 1, 0)


def _add(a, b):
    """The sum of two points in extended coordinates (X:Y:Z:T), RFC 8032 section 5.1.4."""
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    pa = (y1 - x1) * (y2 - x2) % P
    pb = (y1 + x1) * (y2 + x2) % P
    pc = 2 * t1 * t2 * D % P
    pd = 2 * z1 * z2 % P
    e, f, g, h = pb - pa, pd - pc, pd + pc, pb + pa
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _times(s, point):
    """``s`` times ``point`` (double and add)."""
    out = NEUTRAL
    while s:
        if s & 1:
            out = _add(out, point)
        point = _add(point, point)
        s >>= 1
    return out


def decode(raw):
    """The point a 32-byte encoding names (section 5.1.3), or None when it names none."""
    y = int.from_bytes(raw, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P or x == 0 and sign:
        return None
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


def encode(point):
    """A point's 32-byte encoding (section 5.1.2)."""
    x, y, z, _t = point
    zi = pow(z, P - 2, P)
    x, y = x * zi % P, y * zi % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


BASE = decode((4 * pow(5, P - 2, P) % P).to_bytes(32, "little"))      # y = 4/5, x even


def verify(pub, sig, msg):
    """True when ``sig`` (64 bytes) is the signature of the bytes ``msg`` by the holder of the
    public key ``pub`` (32 bytes)."""
    if len(pub) != 32 or len(sig) != 64:
        return False
    a = decode(pub)
    s = int.from_bytes(sig[32:], "little")
    if a is None or s >= L:
        return False
    k = int.from_bytes(hashlib.sha512(sig[:32] + pub + msg).digest(), "little") % L
    minus_a = ((P - a[0]) % P, a[1], a[2], (P - a[3]) % P)
    return encode(_add(_times(s, BASE), _times(k, minus_a))) == sig[:32]
