"""The shipped networks: where each variant's weights live, and their provenance record.

``weights/<variant>.npz`` holds the float arrays; ``weights/<variant>.json`` says how they were
made (the command, seed, games, commit, date, the measured strength) and is updated by
``train`` at every chunk, so a training run resumes from the files alone.
"""

import hashlib
import json
import os

import numpy as np

from host_tools.engine.net import Net

HOME = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights")


def paths(variant, folder=None):
    folder = folder or HOME
    return os.path.join(folder, variant + ".npz"), os.path.join(folder, variant + ".json")


def digest(net):
    """A short hash of the weights (names a network in benchmark reports)."""
    h = hashlib.sha256()
    for k, a in sorted(net.arrays().items()):
        h.update(k.encode())
        h.update(np.ascontiguousarray(a, dtype=np.float32).tobytes())
    return h.hexdigest()[:12]


def save(variant, net, record, folder=None):
    """Write the weights and their record atomically (a cut run leaves the last whole pair)."""
    npz, js = paths(variant, folder)
    os.makedirs(os.path.dirname(npz), exist_ok=True)
    record = dict(record)
    record["weights_sha"] = digest(net)
    record["shape"] = list(net.shape)
    tmp = npz + ".tmp.npz"
    np.savez(tmp, **net.arrays())
    os.replace(tmp, npz)
    with open(js + ".tmp", "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(js + ".tmp", js)


def load(variant, folder=None):
    """(Net, record) for ``variant``; LookupError when no weights are shipped for it."""
    npz, js = paths(variant, folder)
    if not os.path.exists(npz):
        raise LookupError("no trained network for %s (looked for %s); train one with "
                          "`nardy train --variant %s`" % (variant, npz, variant))
    with np.load(npz) as a:
        net = Net.from_arrays(a)
    record = {}
    if os.path.exists(js):
        with open(js) as f:
            record = json.load(f)
    from host_tools.engine.encode import INPUTS
    if net.shape[0] != INPUTS:
        raise ValueError("%s was made for %d inputs, the encoder now makes %d: train it again"
                         % (npz, net.shape[0], INPUTS))
    if record.get("weights_sha") not in (None, digest(net)):
        raise ValueError("%s does not match its record %s (weights_sha)" % (npz, js))
    return net, record
