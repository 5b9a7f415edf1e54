"""play leaves no temporary flash folder behind, however it ends; a --flash folder stays."""

import os

import pytest

from host_tools import cmd_play


class FakeLink:
    def __init__(self, **kwargs):
        self.flash_dir = kwargs["flash_dir"]
        assert os.path.isdir(self.flash_dir)

    def describe(self):
        return "virtual board"


@pytest.mark.parametrize("keep", [False, True])
def test_the_temporary_flash_folder_is_removed_when_play_ends(monkeypatch, tmp_path, keep):
    seen = []

    def no_hub(link, director=None):
        seen.append(link.flash_dir)
        raise OSError("no hub here")
    monkeypatch.setattr(cmd_play, "FirmwareProcess", FakeLink)
    monkeypatch.setattr(cmd_play, "start_hub", no_hub)
    argv = ["--sim", "--no-browser"] + (["--flash", str(tmp_path / "flash")] if keep else [])
    if keep:
        (tmp_path / "flash").mkdir()
    assert cmd_play.main(argv) == 1
    assert len(seen) == 1 and os.path.isdir(seen[0]) is keep
