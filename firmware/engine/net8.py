"""One variant's 8-bit network (format in host_tools/engine/quantize.py), from its module or a file."""

from array import array

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_HEADER = const(16)
_TABLE = const(513)
# p, the scalar parameters the arithmetic reads (an array of 32-bit ints, in this order)
P_INPUTS = const(0)
P_HIDDEN = const(1)
P_OUTPUTS = const(2)
P_SH1 = const(3)        # hidden sum >> sh1 (<< -sh1 when negative): units of 2**-12
P_SH2 = const(4)        # output sum >> sh2: units of 2**-12
P_NEED = const(5)       # checkers that hold a point
P_HITTING = const(6)
P_OPPOSITE = const(7)   # opposite geometry (a race exists)
P_AGAIN = const(8)      # set per turn: 1 when the mover moves again (matador)
P_EQ = const(9)         # the outputs' equity weights, O of them


def _u16(b, i):
    return b[i] | (b[i + 1] << 8)


def _i32(b, i):
    v = b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)
    return v - (1 << 32) if v & 0x80000000 else v


class Net8:
    """The weights as one bytes (w1, w2 int8; b1, b2 int32; the sigmoid table) and the
    parameters ``p`` of the variant's rules (holding, hitting, geometry, equity weights)."""

    def __init__(self, data, rules):
        if bytes(data[:4]) != b"NRD8" or data[4] != 2:
            raise ValueError("not a version-2 .n8 network")
        o = data[5]
        h = data[6]
        s1 = data[7] - 256 if data[7] > 127 else data[7]
        n = _u16(data, 8)
        s2 = data[10] - 256 if data[10] > 127 else data[10]
        res = rules.results
        if o != 2 * len(res) - 1:
            raise ValueError("the network has %d outputs, %s's scoring needs %d" % (o, rules.name, 2 * len(res) - 1))
        self.inputs, self.hidden, self.outputs = n, h, o
        self.data = data
        m = memoryview(data)
        a = _HEADER
        self.w1 = m[a:a + n * h]
        a += n * h
        self.b1 = array("i", [_i32(data, a + 4 * j) for j in range(h)])
        a += 4 * h
        self.w2 = m[a:a + h * o]
        a += h * o
        self.b2 = array("i", [_i32(data, a + 4 * k) for k in range(o)])
        a += 4 * o
        self.table = array("H", [_u16(data, a + 2 * i) for i in range(_TABLE)])
        if a + 2 * _TABLE != len(data):
            raise ValueError("a .n8 network of %d bytes, expected %d" % (len(data), a + 2 * _TABLE))
        x = rules.xlat
        p = array("i", [0] * (P_EQ + o))
        p[P_INPUTS] = n
        p[P_HIDDEN] = h
        p[P_OUTPUTS] = o
        p[P_SH1] = s1 - 4
        p[P_SH2] = s2 + 3
        p[P_NEED] = 2 if rules.block == 2 else 1
        p[P_HITTING] = 1 if rules.block == 2 else 0
        p[P_OPPOSITE] = 1 if x[1] == 24 else 0
        k = len(res) - 1
        p[P_EQ] = 2
        for i in range(k):
            p[P_EQ + 1 + i] = res[i + 1] - res[i]
            p[P_EQ + 1 + k + i] = res[i] - res[i + 1]
        self.p = p
        self.xlat = bytes(x)


def load(rules, path=None):
    """The variant's network: its shipped module firmware.engine.nets.<variant> (bytes in flash
    when frozen), or the .n8 file at ``path``; ImportError when none is shipped."""
    if path is not None:
        with open(path, "rb") as f:
            return Net8(f.read(), rules)
    mod = __import__("firmware.engine.nets." + rules.name, None, None, ("DATA",))
    return Net8(mod.DATA, rules)
