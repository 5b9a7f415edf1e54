"""The habits CI enforces: ruff finds nothing, mypy finds nothing in the host tools and the rules
API, the firmware type-checks against the published rp2 stubs, and the simulated stand-ins offer
nothing the real modules lack."""

import os
import subprocess
import sys

import pytest

from host_tools import typecheck

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*argv):
    done = subprocess.run([sys.executable, "-m"] + list(argv), cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


def test_ruff_finds_nothing():
    code, out = run("ruff", "check", "--no-cache", ".")
    assert code == 0, out


def test_every_declared_hook_is_a_habit_the_tree_keeps():
    """Each hook of .pre-commit-config.yaml is one this suite runs: a formatter declared there
    (or in pyproject.toml) would have to leave the tree unchanged."""
    with open(os.path.join(REPO, ".pre-commit-config.yaml")) as f:
        entries = [line.split("entry:", 1)[1].strip() for line in f if "entry:" in line]
    known = {"python -m ruff check --force-exclude", "python -m mypy host_tools firmware/rules",
             "python -m host_tools mip --check"}     # tests/test_micropython_packaging.py
    for entry in entries:
        if entry.startswith("python -m ruff format"):
            code, out = run("ruff", "format", "--check", ".")
            assert code == 0, "ruff format is declared as a hook but not applied:\n" + out[-2000:]
        else:
            assert entry in known or "typecheck" in entry, "a hook the suite does not run: " + entry
    with open(os.path.join(REPO, "pyproject.toml")) as f:
        if "[tool.ruff.format]" in f.read():
            code, out = run("ruff", "format", "--check", ".")
            assert code == 0, "pyproject.toml configures ruff format, but the tree is not formatted"


def test_mypy_finds_nothing_in_the_host_tools_and_the_rules_api():
    code, out = run("mypy", "host_tools", "firmware/rules")
    assert code == 0, out


@pytest.fixture(scope="module")
def stubs():
    return typecheck.stubs_dir()


def test_the_firmware_type_checks_against_the_rp2_stubs(stubs):
    code, out = typecheck.run_mypy(stubs)
    assert code == 0, out
    assert "no issues found" in out


def test_the_simulated_stand_ins_offer_nothing_the_real_modules_lack(stubs):
    problems = [p for p in typecheck.drift(stubs) if p.split(":")[0] not in typecheck.SIM_ONLY]
    assert problems == []
    for name in typecheck.SIM_ONLY:      # each exemption still names something the stand-in has
        module, _, attr = name.partition(".")
        with open(os.path.join(REPO, "firmware", "sim", module + ".py")) as f:
            assert attr.split(".")[-1] in f.read(), name


def test_drift_is_found_when_a_stand_in_invents_api(stubs, tmp_path):
    for name in typecheck.STAND_INS:
        with open(os.path.join(REPO, "firmware", "sim", name + ".py")) as f:
            (tmp_path / (name + ".py")).write_text(f.read())
    with open(tmp_path / "machine.py", "a") as f:
        f.write("\n\ndef frobnicate():\n    pass\n\n\nclass ADC:\n"
                "    def read_u16(self, extra):\n        return 0\n")
    found = typecheck.drift(stubs, str(tmp_path))
    assert any("machine.frobnicate" in p and "real module does not" in p for p in found)
    assert any("machine.ADC.read_u16" in p and "by position" in p for p in found)


def test_a_wrong_call_to_a_real_module_fails_the_firmware_check(stubs, tmp_path):
    """mypy with the stubs catches what the stand-ins would let through."""
    bad = tmp_path / "bad.py"
    bad.write_text("import machine\nmachine.Pin(1).frobnicate()\nmachine.ADC(26).read_u16(7)\n")
    ini = tmp_path / "mypy.ini"
    ini.write_text(typecheck._MYPY_INI % {"stubs": stubs, "cache": str(tmp_path / "cache"),
                                          "stub_modules": ",".join(typecheck.stub_modules(stubs))})
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ini), str(bad)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1
    assert "frobnicate" in done.stdout and "read_u16" in done.stdout, done.stdout
