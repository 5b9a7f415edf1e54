"""nardy doctor: one line a check, exit 0 when playing works; a missing extra is named in one line."""

import sys

import pytest

from host_tools import __main__ as entry
from host_tools import cmd_doctor


def test_doctor_says_one_line_a_check_and_passes_here(capsys):
    assert cmd_doctor.main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(cmd_doctor.checks())
    assert all(line[:3] in ("ok ", "-- ") for line in lines)
    assert lines[0].startswith("ok Python 3.")


def test_doctor_fails_when_a_base_package_is_missing(monkeypatch, capsys):
    real = cmd_doctor.importlib.util.find_spec
    monkeypatch.setattr(cmd_doctor.importlib.util, "find_spec",
                        lambda name: None if name == "serial" else real(name))
    assert cmd_doctor.main([]) == 1
    assert "-- pyserial (base)" in capsys.readouterr().out


@pytest.mark.parametrize("module, says", [
    ("paho", "needs paho-mqtt: pip install 'smart-nardy[hall]'"),
    ("cryptography.hazmat", "needs cryptography: pip install 'smart-nardy[verify]'"),
    ("serial", "needs pyserial (pip install pyserial)"),
])
def test_a_command_missing_an_optional_module_says_what_to_install(monkeypatch, capsys, module, says):
    def broken(argv):
        raise ModuleNotFoundError("No module named %r" % module, name=module)
    monkeypatch.setattr(cmd_doctor, "main", broken)
    assert entry.main(["doctor"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


def test_another_missing_module_is_a_bug_not_an_extra(monkeypatch):
    def broken(argv):
        raise ModuleNotFoundError("No module named 'firmware.nothing'", name="firmware.nothing")
    monkeypatch.setattr(cmd_doctor, "main", broken)
    with pytest.raises(ModuleNotFoundError):
        entry.main(["doctor"])


@pytest.mark.parametrize("argv0, want", [("/x/bin/nardy", "nardy soak"), ("/x/host_tools/__main__.py",
                                                                        "python -m host_tools soak")])
def test_usage_lines_say_the_command_as_it_was_run(monkeypatch, argv0, want):
    from host_tools import prog
    monkeypatch.setattr(sys, "argv", [argv0])
    assert prog("soak") == want
