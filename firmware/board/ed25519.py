"""Ed25519 signatures (RFC 8032) and the SHA-512 they hash with, in pure MicroPython: the board's game-end signature.

``public_key(seed)`` is the 32-byte public key of a 32-byte secret seed; ``sign(seed, msg)`` is
the 64-byte signature of ``msg`` (deterministic, RFC 8032 section 5.1.6), which anyone holding
only the public key can check. ``sha512`` is the interpreter's own when it has one (CPython; the
rp2 port has none) and pure Python otherwise.

How it runs fast enough on an RP2040: field elements are MicroPython's big integers (C) reduced
mod p = 2^255 - 19; points in extended coordinates (X:Y:Z:T); the base point's multiples come
from a fixed comb of 4 teeth (the 15 sums of B, 2^64 B, 2^128 B, 2^192 B, affine, as
(y+x, y-x, 2dxy)), so a scalar multiplication is 64 doublings and 64 mixed additions; one
inversion per encoded point. Nothing here verifies signatures: the host does (``cryptography``).

Not constant-time, and cannot be in MicroPython: big-integer arithmetic and the comb's table
look-ups take time that depends on the secret. That leaks little here: whoever can time the
board closely has it in hand, and can read the seed from its flash anyway (docs/security.md).
"""

import hashlib
import struct
try:
    from micropython import const
except ImportError:                 # CPython (host tools, tests)
    def const(x):
        return x

_P = const(0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed)      # 2^255 - 19
_L = const(0x1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3ed)      # the group order
_W = const(0xffffffffffffffff)              # a 64-bit word's mask
_FAST = getattr(hashlib, "sha512", None)    # the interpreter's own SHA-512, where there is one

# SHA-512's round constants K (FIPS 180-4, section 4.2.3), at 0..79
_K = (
    0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
    0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
    0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
    0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
    0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
    0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
    0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
    0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
    0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
    0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
    0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
    0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
    0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
    0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
    0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
    0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
    0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
    0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
    0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
    0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
    # the initial hash value H(0) (FIPS 180-4, 5.3.5), at 80..87
    0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
    0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
)

_T = (
    (0x07cf9d3a33d4ba65270b4898643d42c2cf932dc6fb8c0e192fbc93c6f58c3b85,
     0x44fd2f9298f81267a5c18434688f8a09fd399f05d140beb39d103905d740913e,
     0x6f117b689f0c65a85a1b7dcbdd43598c26d9e823ccaac49eabc91205877aaa68),
    (0x654878cba97cc9fbb1b73bbcdabc06e5548991878faa60f1cd2a65e777d1f515,
     0x2102fdba2b20d65009207a1d717af1b95397da89e575f51b51138ec78df6b0fe,
     0x0ad725db29ecb2ba3a1af517aa7da41536bca7681251ad29969ee405055ce6a1),
    (0x26ead8e64813cf2b3e14aad0fe45e44c8793342b66480e600055c585601e59e8,
     0x0975b5970fc12f2fcd1972ec881342f62dd86fc567d31cd7cb75b8b69c8462a4,
     0x534670479df6c5ea333790d0aa7367da04bf9d8152f1ba6e63cf2303da5ba743),
    (0x2b5449e58eb3bbaa2b1e583b0810c5db29b743e8148be884583b04bfacad8ea2,
     0x1304e9e71627d55100c3e53145747299f7ea38548ebda0b85f3a7562eb3dbe47,
     0x4468de2d7c2dd693da0fe1fff979c60a3c1bab3f8b48dd0b789814d26adc9cfe),
    (0x26a13664d0543d4df551be51c67bb198e71ffd60d0b20ef72118278de3bc6748,
     0x49d76bba7942742edfea3ad4acf4f0f1855225506cd8952929522d3b13a339ee,
     0x4e1fafe3a8fcedc2247d576da7adb185191d3946c351299a14fa42338d56e61d),
    (0x4e559a0f0fc5bba4519960d2d321a8283cddbcb13b8d87e315e7053d236a044c,
     0x727021d35f87530cc169454b0c02eb1b95dcdc0a039c3b5ffe00e8769c12701c,
     0x64fcb73007bbc01dfe6edb5c60a69adedf45efaab2900d36a571040727df241e),
    (0x6f34c66d6fd086ef8850b78fc442d65fef786575171a98fc38ef58cc6fd390ca,
     0x0b598b8e8b849f6dd7bd8096ce34981d0791ffb24307b72793f3cbb43898dc04,
     0x412128b0b1ac66c80a9bc046c00b594081114607b529ce2a11cfc18a0cc2f689),
    (0x7da0b8f68d7e7daba7ebf3be95dbd7c697a05cf41b38a436a66dcc9dc80c1ac0,
     0x46115aba1d4dc0b34cd1eb505cdfa8cba2649f30aafda9e8ef782014385675a6,
     0x5a5f887e83674b4b03cc6021feb259601dac6f7321119e9bd40f1953c3b5da76),
    (0x45a02890607f15c0d7e67a47b82f4e99815eb0dbcc68df400a8d60180ca2c1f4,
     0x4013f03d6ad351ba4b39e15e0150a74d8b694a1101cfe11efef366d1fd41f184,
     0x482255c1d9f06e4f534e9ad8febce87436b994fd224ae646bd0282dc6ee065cc),
    (0x4e8593b0bc655462383fea286a29c47790367544ca8afebb3c03eacf71cef800,
     0x6bb91a497b9b794456b0d29d7b8b13a3ba2a4aa929c4f20d12de114aa3e5638c,
     0x20cf7d79b0ebe39b50ab6ce8edab529eb13ef9cd9263c4452a49e646c5e7d206),
    (0x7c1188539f570886373bb9c898bc21703cde029144000b60cbd28f4e8ae75c48,
     0x023562378899469d098be61c357e1d1df50eb90fcba951ce7db4939df0fe7dca,
     0x38d20188d106148379f50a03fc99de672f470a943c778e0520f6effae15a4c03),
    (0x043eedd45e1f4deeb7ba0f59a75d586c0b650d05e2aeb29023e811ad0e6315df,
     0x173c4fa94f45073e258fdbfd7041f802c651b919f3afd20cf6c147f2c7073217,
     0x1e2a7024993cc472d9b0514ca29552b25b7e78063373562d3d71ea60928df9c4),
    (0x5fcb43ee06225b26a0cae62b17d2407f24b7bc7d92ec0803601a0fbcd45c811f,
     0x044649f411b2e77397deccba52401c870d8db37605631b75310509b93509fba4,
     0x0c8a1bfa5cc0e58f338e2f557016dcea1b7f9026cc36628c0c0d24ad9598215f),
    (0x6b857c7efcc3e6caae710c171ce56c633d2f7a591263cb458de703b5681d104c,
     0x09de2bf5dd418acaa751ab1d4733ba417e9fbeac3c400fc479d256b48b2801c0,
     0x5b466e2ac3b242cae49e61261d66034d5ebaea34f1e37ba23bf10ff3eff0687f),
    (0x09952a563bc8ffc25a2ba76f71f8c89a79df5c7560811a8b137eeb6747fbb842,
     0x409b4adce5c6cf2fd4ebeb1b0664e3a596b5c6fa5f93c226a2a8cb4bdc7ef83c,
     0x69b968a704657d64fb22faa25949ff2f89299305a5f505b444d53db9834350c4),
)


def sha512(m):
    """The SHA-512 digest (64 bytes) of the bytes ``m`` (FIPS 180-4)."""
    if _FAST:
        return _FAST(m).digest()
    n = len(m)
    r = n & 127
    # the last block or two: the tail, 0x80, zeros and the length in bits (128-bit big-endian)
    t = bytes(m[n - r:]) + b"\x80" + bytes((111 - r) & 127) + struct.pack(">QQ", 0, n << 3)
    h = list(_K[80:])
    w = [0] * 80
    k = _K
    for b, e in ((m, n - r), (t, len(t))):
        for o in range(0, e, 128):
            w[:16] = struct.unpack_from(">16Q", b, o)
            for j in range(16, 80):
                x = w[j - 15]
                y = w[j - 2]
                w[j] = (w[j - 16] + w[j - 7] + (x >> 1 ^ x << 63 ^ x >> 8 ^ x << 56 ^ x >> 7)
                        + (y >> 19 ^ y << 45 ^ y >> 61 ^ y << 3 ^ y >> 6)) & _W
            a, b_, c, d, e_, f, g, hh = h
            for j in range(80):
                x = (hh + (e_ >> 14 ^ e_ << 50 ^ e_ >> 18 ^ e_ << 46 ^ e_ >> 41 ^ e_ << 23)
                     + (g ^ (e_ & (f ^ g))) + k[j] + w[j])
                hh = g
                g = f
                f = e_
                e_ = (d + x) & _W
                d = c
                c = b_
                b_ = a
                a = (x + (b_ >> 28 ^ b_ << 36 ^ b_ >> 34 ^ b_ << 30 ^ b_ >> 39 ^ b_ << 25)
                     + ((b_ & c) | (d & (b_ | c)))) & _W
            h[0] = (h[0] + a) & _W
            h[1] = (h[1] + b_) & _W
            h[2] = (h[2] + c) & _W
            h[3] = (h[3] + d) & _W
            h[4] = (h[4] + e_) & _W
            h[5] = (h[5] + f) & _W
            h[6] = (h[6] + g) & _W
            h[7] = (h[7] + hh) & _W
    return struct.pack(">8Q", *h)


def _point(s):
    """The encoding (RFC 8032 section 5.1.2) of s B, for 0 <= s < 2^256."""
    s = s.to_bytes(32, "little")
    x, y, z, u = 0, 1, 1, 0                 # the neutral point, extended (X:Y:Z:T)
    tab = _T
    for j in range(63, -1, -1):             # the comb's columns, bit j of each 64-bit quarter
        q = j >> 3
        b = 1 << (j & 7)
        i = ((s[q] & b and 1) | (s[q + 8] & b and 2) | (s[q + 16] & b and 4)
             | (s[q + 24] & b and 8))
        # doubling (RFC 8032 section 5.1.4)
        a = x * x % _P
        b = y * y % _P
        c = 2 * z * z % _P
        h = a + b
        e = h - (x + y) * (x + y) % _P
        g = a - b
        f = c + g
        x = e * f % _P
        y = g * h % _P
        u = e * h % _P
        z = f * g % _P
        if i:                               # a mixed addition of the table's (y+x, y-x, 2dxy)
            p, m, t = tab[i - 1]
            a = (y - x) * m % _P
            b = (y + x) * p % _P
            c = u * t % _P
            d = 2 * z
            e = b - a
            f = d - c
            g = d + c
            h = b + a
            x = e * f % _P
            y = g * h % _P
            u = e * h % _P
            z = f * g % _P
    z = pow(z, _P - 2, _P)
    x = x * z % _P
    return ((y * z % _P) | (x & 1) << 255).to_bytes(32, "little")


def public_key(seed):
    """The public key (32 bytes) of the 32-byte secret ``seed`` (RFC 8032 section 5.1.5)."""
    h = sha512(seed)
    return _point(int.from_bytes(h[:32], "little") & (1 << 254) - 8 | 1 << 254)


def sign(seed, msg):
    """The Ed25519 signature (64 bytes) of the bytes ``msg`` under the 32-byte ``seed``
    (RFC 8032 section 5.1.6)."""
    h = sha512(seed)
    a = int.from_bytes(h[:32], "little") & (1 << 254) - 8 | 1 << 254
    pub = _point(a)
    r = int.from_bytes(sha512(h[32:] + msg), "little") % _L
    h = _point(r)
    k = int.from_bytes(sha512(h + pub + msg), "little") % _L
    return h + ((r + k * a) % _L).to_bytes(32, "little")
