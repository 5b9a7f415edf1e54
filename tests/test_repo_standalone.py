"""The repository stands alone: no tracked file names a folder of the machine it was written on,
nor the sibling folders a clone does not have."""

import os
import re
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Absolute paths of a developer's or CI's machine: their work tree, home folders, the venv the
# tools were installed in. A tracked file naming one works only there.
ROOTS = ("work", "root")            # this machine's top folders (spelled apart from their slashes)
MACHINE_PATH = re.compile(r"(?<![\w.])(/(?:%s)/|/home/\w|/Users/\w|[A-Z]:\\Users\\)" % "|".join(ROOTS))
SIBLING = re.compile(r"\.\./shared\b")


def tracked_files():
    done = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, timeout=60)
    if done.returncode == 0 and done.stdout:
        return [n for n in done.stdout.decode().split("\0") if n]
    found = []                              # an export without .git: every file but the venv
    for dirpath, dirnames, files in os.walk(REPO):
        dirnames[:] = [d for d in dirnames if d not in (".git", ".venv", "build", "__pycache__")]
        found += [os.path.relpath(os.path.join(dirpath, f), REPO) for f in files]
    return found


def texts():
    for name in tracked_files():
        path = os.path.join(REPO, name)
        if not os.path.isfile(path):
            continue                        # deleted in the work tree, not yet committed
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data[:4096]:
            continue                        # binary
        yield name, data.decode("utf-8", "replace")


@pytest.mark.parametrize("text, bad", [
    # (spelled in pieces, so that this file does not name them itself)
    ("see /" + "work/shared/tools/mpy_cost.py", True),
    ("cd /" + "root/project", True),
    ("/" + "home/alice/nardy", True),
    ("C:" + "\\Users\\bob\\nardy", True),
    ("docs/" + "work/ and https://example.org/" + "root/x", False),
    ("firmware/sim/world.py uses /tmp/nardy-sim", False),
])
def test_the_pattern_tells_machine_paths_from_repository_paths(text, bad):
    assert bool(MACHINE_PATH.search(text)) is bad


def test_no_tracked_file_names_a_path_of_this_machine():
    found = []
    for name, text in texts():
        for n, line in enumerate(text.splitlines(), 1):
            if MACHINE_PATH.search(line):
                found.append("%s:%d: %s" % (name, n, line.strip()[:120]))
    assert not found, "absolute paths of one machine:\n" + "\n".join(found)


def test_nothing_needs_a_folder_beside_the_repository():
    """Code and tests read only what the repository holds: no sibling 'shared' folder."""
    found = []
    for name, text in texts():
        if name.endswith(".py") or name.endswith(".sh") or name in (".ci/run", "pytest.ini"):
            for n, line in enumerate(text.splitlines(), 1):
                if SIBLING.search(line) or re.search(r"parent\s*/\s*[\"']shared[\"']", line):
                    found.append("%s:%d: %s" % (name, n, line.strip()[:120]))
    assert not found, "\n".join(found)
