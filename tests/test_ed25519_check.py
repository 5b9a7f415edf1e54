"""The host's pure-Python Ed25519 check agrees with the cryptography package, and export uses it
where that package is not installed."""

import hashlib
import sys

import pytest

from firmware.board import ed25519
from host_tools.records import ed25519_check, export

SEEDS = [hashlib.sha256(b"seed %d" % i).digest() for i in range(6)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("msg", [b"", b"nardy", b"x" * 200])
def test_a_good_signature_holds_and_every_change_breaks_it(seed, msg):
    pub = ed25519.public_key(seed)
    sig = ed25519.sign(seed, msg)
    assert ed25519_check.verify(pub, sig, msg)
    assert not ed25519_check.verify(pub, sig, msg + b"!")
    for i in (0, 31, 32, 63):
        bad = bytearray(sig)
        bad[i] ^= 4
        assert not ed25519_check.verify(pub, bytes(bad), msg)
    assert not ed25519_check.verify(ed25519.public_key(SEEDS[0] if seed != SEEDS[0] else SEEDS[1]),
                                    sig, msg)


@pytest.mark.parametrize("pub, sig", [(b"", b"\0" * 64), (b"\0" * 32, b""), (b"\xff" * 32, b"\0" * 64),
                                      (b"\0" * 32, b"\0" * 32 + b"\xff" * 32)])
def test_malformed_keys_and_signatures_are_refused(pub, sig):
    assert not ed25519_check.verify(pub, sig, b"m")


def test_it_agrees_with_the_cryptography_package():
    crypto = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.ed25519")
    for seed in SEEDS:
        key = crypto.Ed25519PrivateKey.from_private_bytes(seed)
        pub = key.public_key().public_bytes_raw()
        assert pub == ed25519.public_key(seed)
        assert ed25519_check.verify(pub, key.sign(b"turn 7"), b"turn 7")


def test_export_checks_signatures_without_the_cryptography_package(monkeypatch):
    seed = SEEDS[2]
    monkeypatch.setitem(sys.modules, "cryptography", None)     # import cryptography fails
    monkeypatch.setitem(sys.modules, "cryptography.exceptions", None)
    assert export._verify(ed25519.public_key(seed), ed25519.sign(seed, b"m"), b"m")
    assert not export._verify(ed25519.public_key(seed), ed25519.sign(seed, b"m"), b"n")
