"""Output files: through symlinks, into FIFOs and devices as they are, atomic otherwise."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from codequorum.core.errors import UserError
from codequorum.render.outfile import check_output, open_output


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


def test_new_file_is_written_with_the_umask_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    previous = os.umask(0o022)
    try:
        with open_output(target) as stream:
            stream.write("a,b\n")
    finally:
        os.umask(previous)
    assert target.read_text() == "a,b\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert _leftovers(tmp_path) == []


def test_existing_file_is_replaced_atomically_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old\n")
    target.chmod(0o640)
    before = target.stat().st_ino
    with open_output(target) as stream:
        stream.write("new")
        # while the block runs, readers still see the old content
        assert target.read_text() == "old\n"
        assert len(_leftovers(tmp_path)) == 1
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.stat().st_ino != before  # a new file was renamed into place
    assert _leftovers(tmp_path) == []


def test_failure_inside_the_block_leaves_the_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), open_output(target) as stream:
        stream.write("half")
        raise RuntimeError("stop")
    assert target.read_text() == "old\n"
    assert _leftovers(tmp_path) == []


def test_symlink_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "data" / "scores.csv"
    real.parent.mkdir()
    real.write_text("old\n")
    real.chmod(0o600)
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    check_output(link)
    with open_output(link) as stream:
        stream.write("new\n")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert _leftovers(real.parent) == [] and _leftovers(tmp_path) == []


def test_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "made.json")
    with open_output(link) as stream:
        stream.write("{}")
    assert link.is_symlink()
    assert (tmp_path / "made.json").read_text() == "{}"


def test_fifo_is_written_into_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as reader:
            received.append(reader.read())

    reader = threading.Thread(target=read)
    reader.start()
    check_output(fifo)
    with open_output(fifo) as stream:
        stream.write("line 1\nline 2\n")
    reader.join(timeout=10)
    assert not reader.is_alive()
    assert received == [b"line 1\nline 2\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert _leftovers(tmp_path) == []


def test_character_device_stays_a_device(tmp_path: Path) -> None:
    device = Path(os.devnull)
    link = tmp_path / "null"
    link.symlink_to(device)
    check_output(device)
    for path in (device, link):
        with open_output(path) as stream:
            stream.write("discarded\n")
        assert stat.S_ISCHR(device.stat().st_mode)
    assert link.is_symlink()


def test_stdout_for_none_and_dash(capsys: pytest.CaptureFixture[str]) -> None:
    for path in (None, "-"):
        with open_output(path) as stream:
            stream.write("to stdout\n")
    assert capsys.readouterr().out == "to stdout\n" * 2


def test_unwritable_places_are_refused_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="is a directory"):
        check_output(tmp_path)
    with pytest.raises(UserError, match="does not exist"):
        check_output(tmp_path / "no" / "out.json")
    if os.geteuid() == 0:
        return  # root writes anywhere: the permission cases below do not apply
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "open.json").write_text("old")
    locked.chmod(0o500)
    try:
        with pytest.raises(UserError, match="is not writable"):
            check_output(locked / "new.json")
        # the folder is closed but the file is writable: it is rewritten in place
        check_output(locked / "open.json")
        with open_output(locked / "open.json") as stream:
            stream.write("new")
        assert (locked / "open.json").read_text() == "new"
    finally:
        locked.chmod(0o700)
