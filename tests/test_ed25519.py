"""Ed25519 signing and SHA-512 on the board (firmware/board/ed25519.py): RFC 8032's vectors, SHA-512
against hashlib around the block boundaries (pure path forced), random seeds and messages against
the ``cryptography`` package, on CPython and under the real MicroPython unix port (230K heap)."""

import hashlib
import os
import subprocess
import types

import pytest
from hypothesis import given, seed, settings, strategies as st
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from firmware.board import ed25519

# RFC 8032, section 7.1 (Test Vectors for Ed25519): (name, SECRET KEY, PUBLIC KEY, MESSAGE,
# SIGNATURE), hex, as the RFC states them.
VECTORS = (
    ("TEST 1",
     "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
     "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("TEST 2",
     "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
     "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ("TEST 3",
     "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
     "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ("TEST 1024",
     "f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
     "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
     "08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98fa6e264bf09efe12ee50f8f54e9f77b1"
     "e355f6c50544e23fb1433ddf73be84d879de7c0046dc4996d9e773f4bc9efe5738829adb26c81b37c93a1b270b20329d"
     "658675fc6ea534e0810a4432826bf58c941efb65d57a338bbd2e26640f89ffbc1a858efcb8550ee3a5e1998bd177e93a"
     "7363c344fe6b199ee5d02e82d522c4feba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e"
     "06203b33890cc9b832f79ef80560ccb9a39ce767967ed628c6ad573cb116dbefefd75499da96bd68a8a97b928a8bbc10"
     "3b6621fcde2beca1231d206be6cd9ec7aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53f1d8ac70bdcb7ed1"
     "85ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2d17ba70eb6248e594e1a2297acbbb39d"
     "502f1a8c6eb6f1ce22b3de1a1f40cc24554119a831a9aad6079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f270"
     "88d78b7e883c8759d2c4f5c65adb7553878ad575f9fad878e80a0c9ba63bcbcc2732e69485bbc9c90bfbd62481d9089b"
     "eccf80cfe2df16a2cf65bd92dd597b0707e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128ba"
     "b27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51addd3b75a2b1ae0784504df543af8969b"
     "e3ea7082ff7fc9888c144da2af58429ec96031dbcad3dad9af0dcbaaaf268cb8fcffead94f3c7ca495e056a9b47acdb7"
     "51fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301651339e22904cc8c42f58c30c04aafdb038dda0847dd988d"
     "cda6f3bfd15c4b4c4525004aa06eeff8ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34df"
     "f7310fdc82aebfd904b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08d78ff4ef5d63653a65040cf9bfd4aca7"
     "984a74d37145986780fc0b16ac451649de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a3ca8e1b939ae49e4"
     "88acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a32ef5b52a1ecc820e308aa342721aac09"
     "43bf6686b64b2579376504ccc493d97e6aed3fb0f9cd71a43dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5f"
     "b93246f6b1116398a346f1a641f3b041e989f7914f90cc2c7fff357876e506b50d334ba77c225bc307ba537152f3f161"
     "0e4eafe595f6d9d90d11faa933a15ef1369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d"
     "b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c0618983f8741c5ef68d3a101e8a3b8ca"
     "c60c905c15fc910840b94c00a0b9d0",
     "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03"),
    ("TEST SHA(abc)",
     "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
     "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
     "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"),
)

SHA_LENGTHS = (0, 1, 111, 112, 127, 128, 129, 239, 240, 1000)


def message(n):
    """``n`` bytes that differ from block to block (so a block handled twice would show)."""
    return bytes((i * 7 + (i >> 7) * 13 + 3) & 255 for i in range(n))


def hide_hashlib_sha512(monkeypatch):
    """The module's hashlib without SHA-512, as on the rp2 port: its pure SHA-512 runs."""
    monkeypatch.setattr(ed25519, "hashlib", types.SimpleNamespace(sha256=hashlib.sha256))


@pytest.fixture
def pure(monkeypatch):
    hide_hashlib_sha512(monkeypatch)
    return ed25519


@pytest.mark.parametrize("hashing", ["pure", "hashlib"])
@pytest.mark.parametrize("name,sk,pk,msg,sig", VECTORS, ids=[v[0] for v in VECTORS])
def test_rfc8032_vectors(monkeypatch, hashing, name, sk, pk, msg, sig):
    if hashing == "pure":
        hide_hashlib_sha512(monkeypatch)
    seed_ = bytes.fromhex(sk)
    assert ed25519.public_key(seed_).hex() == pk
    assert ed25519.sign(seed_, bytes.fromhex(msg)).hex() == sig


@pytest.mark.parametrize("n", SHA_LENGTHS)
def test_pure_sha512_equals_hashlib(pure, n):
    m = message(n)
    assert pure.sha512(m) == hashlib.sha512(m).digest()
    assert pure.sha512(bytearray(m)) == hashlib.sha512(m).digest()


def test_the_sha512_constants_are_the_roots_of_the_primes():
    """FIPS 180-4: K is the first 64 bits of the fractional parts of the cube roots of the first
    80 primes, H(0) those of the square roots of the first 8."""
    primes = [n for n in range(2, 410) if all(n % d for d in range(2, n))][:80]

    def root(n, k):                     # the integer k-th root of n
        lo, hi = 0, 1 << (n.bit_length() // k + 1)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if mid ** k <= n else (lo, mid)
        return lo
    want = [root(p << 192, 3) & (2 ** 64 - 1) for p in primes]
    want += [root(p << 128, 2) & (2 ** 64 - 1) for p in primes[:8]]
    assert ed25519._K + ed25519._H == b"".join(w.to_bytes(8, "big") for w in want)


def raw(pub):
    return pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


@seed(8032)
@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.binary(max_size=300), st.data())
def test_signatures_verify_with_cryptography_and_equal_its_own(key, msg, data):
    ours = ed25519.sign(key, msg)
    theirs = Ed25519PrivateKey.from_private_bytes(key)
    pub = ed25519.public_key(key)
    assert pub == raw(theirs.public_key())
    assert ours == theirs.sign(msg)                 # Ed25519 is deterministic
    checker = Ed25519PublicKey.from_public_bytes(pub)
    checker.verify(ours, msg)
    bit = data.draw(st.integers(0, 8 * 64 - 1), label="signature bit")
    bad = bytearray(ours)
    bad[bit >> 3] ^= 1 << (bit & 7)
    with pytest.raises(InvalidSignature):
        checker.verify(bytes(bad), msg)
    if msg:
        bit = data.draw(st.integers(0, 8 * len(msg) - 1), label="message bit")
        bad = bytearray(msg)
        bad[bit >> 3] ^= 1 << (bit & 7)
        with pytest.raises(InvalidSignature):
            checker.verify(ours, bytes(bad))
    with pytest.raises(InvalidSignature):
        checker.verify(ours, msg + b"\0")


@pytest.mark.parametrize("key", [bytes(32), b"\xff" * 32, bytes(range(32))])
def test_edge_seeds_agree_with_cryptography(key):
    want = Ed25519PrivateKey.from_private_bytes(key)
    assert ed25519.public_key(key) == raw(want.public_key())
    assert ed25519.sign(key, b"nardy") == want.sign(b"nardy")


# -- the comb's table and the scalars at its edges, against plain affine arithmetic ----------------
P = 2 ** 255 - 19
L = 2 ** 252 + 27742317777372353535851937790883648493           # RFC 8032, section 5.1
D = -121665 * pow(121666, P - 2, P) % P
BASE = (15112221349535400772501151409588531511454012693041857206046113283949847762202,
        46316835694926478169428394003475163141307993866256225615783033603165251855960)


def affine_add(p, q):
    """Edwards addition (RFC 8032, section 5.1.4's formula before projection), affine."""
    (x1, y1), (x2, y2) = p, q
    t = D * x1 * x2 * y1 * y2 % P
    return ((x1 * y2 + x2 * y1) * pow(1 + t, P - 2, P) % P,
            (y1 * y2 + x1 * x2) * pow(1 - t, P - 2, P) % P)


def affine_mul(s, p):
    q = (0, 1)
    while s:
        if s & 1:
            q = affine_add(q, p)
        p = affine_add(p, p)
        s >>= 1
    return q


def encode(p):
    return (p[1] | (p[0] & 1) << 255).to_bytes(32, "little")


def test_the_comb_table_is_the_sums_of_the_base_points_multiples():
    assert len(ed25519._T) == 2 * 16 and all(len(e) == 96 for e in ed25519._T)
    for m in range(2):
        for i in range(16):
            e = 2 ** 104                        # the top tooth, always +1
            for k in range(4):
                e += (1 if i >> k & 1 else -1) * 2 ** (26 * k)
            x, y = affine_mul(e % L * 2 ** (130 * m) % L, BASE)
            entry = ed25519._T[16 * m + i]
            got = [int.from_bytes(entry[32 * n:32 * n + 32], "little") for n in range(3)]
            assert got == [(y + x) % P, (y - x) % P, 2 * D * x * y % P], (m, i)


@pytest.mark.parametrize("s", [0, 1, 2, 3, 8, L - 1, L, L + 1, 2 ** 252, 2 ** 254, 2 ** 255 - 1,
                               2 ** 254 + 2 ** 130 - 1, 0x5555555555555555555555555555555555555555555555555555555555555555])
def test_scalar_multiples_at_the_recoding_edges(s):
    assert ed25519._point(s) == encode(affine_mul(s % L, BASE))


@pytest.mark.parametrize("bad", [b"", bytes(31), bytes(33), bytes(64)])
def test_a_seed_of_the_wrong_length_is_refused(bad):
    with pytest.raises(ValueError, match="32 bytes"):
        ed25519.public_key(bad)
    with pytest.raises(ValueError, match="32 bytes"):
        ed25519.sign(bad, b"x")


def test_a_bytearray_message_signs_like_bytes():
    assert ed25519.sign(bytes(32), bytearray(b"nardy")) == ed25519.sign(bytes(32), b"nardy")


# -- the same under the real MicroPython, the module compiled to .mpy, in a Pico-sized heap -------
MP_SCRIPT = """
import binascii
from firmware.board import ed25519
hx = binascii.hexlify
def message(n):
    return bytes([(i * 7 + (i >> 7) * 13 + 3) & 255 for i in range(n)])
for n in LENGTHS:
    print("sha", n, hx(ed25519.sha512(message(n))).decode())
for name, sk, msg in CASES:
    sk = binascii.unhexlify(sk)
    print("pk", name, hx(ed25519.public_key(sk)).decode())
    print("sig", name, hx(ed25519.sign(sk, binascii.unhexlify(msg))).decode())
for s in SCALARS:
    print("pt", s, hx(ed25519._point(s)).decode())
"""
MP_SCALARS = (0, 1, L - 1, L, 2 ** 255 - 1)


@pytest.mark.micropython
def test_vectors_and_sha512_under_micropython(tmp_path):
    from host_tools.device import mpytree
    tree = mpytree.build()
    script = tmp_path / "ed.py"
    script.write_text(MP_SCRIPT.replace("LENGTHS", repr(SHA_LENGTHS)).replace(
        "CASES", repr([(v[0], v[1], v[3]) for v in VECTORS])).replace("SCALARS", repr(MP_SCALARS)))
    env = dict(os.environ, MICROPYPATH=".frozen:" + tree)
    done = subprocess.run([mpytree.micropython_path(), "-X", "heapsize=" + mpytree.HEAP, str(script)],
                          cwd=tree, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    got = done.stdout.split("\n")
    want = ["sha %d %s" % (n, hashlib.sha512(message(n)).hexdigest()) for n in SHA_LENGTHS]
    for name, sk, pk, msg, sig in VECTORS:
        want += ["pk %s %s" % (name, pk), "sig %s %s" % (name, sig)]
    want += ["pt %d %s" % (s, encode(affine_mul(s % L, BASE)).hex()) for s in MP_SCALARS]
    assert got[:-1] == want
