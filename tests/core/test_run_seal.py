"""The user's key that seals remembered runs: made once, the user's alone, never made by a
read, and a seal that holds only over the text it was made for."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from codequorum.core import run_seal


def test_the_key_is_made_once_and_readable_by_the_user_alone(tmp_path: Path) -> None:
    folder = tmp_path / "codequorum"
    assert run_seal.seal_key(folder, create=False) is None  # a read makes nothing
    assert not folder.exists()
    key = run_seal.seal_key(folder)
    assert key is not None and len(key) == run_seal.KEY_BYTES
    assert run_seal.seal_key(folder) == key == run_seal.seal_key(folder, create=False)
    if sys.platform != "win32":
        assert stat.S_IMODE(os.stat(folder / run_seal.KEY_NAME).st_mode) == 0o600


def test_the_key_follows_the_users_config_folder(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    key = run_seal.seal_key()
    assert key is not None and (tmp_path / "codequorum" / run_seal.KEY_NAME).read_bytes() == key


def test_a_key_that_cannot_be_made_or_is_not_one_seals_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert run_seal.seal_key(blocker / "codequorum") is None
    short = tmp_path / "short"
    short.mkdir()
    (short / run_seal.KEY_NAME).write_bytes(b"x" * 5)
    assert run_seal.seal_key(short) is None


@pytest.mark.parametrize("record", ["{}", "", "é ☃ \U0001f600", "a:b:c"])
def test_a_seal_holds_only_for_its_text_and_its_key(record: str) -> None:
    key, other = bytes(range(32)), bytes(32)
    sealed = run_seal.seal(key, record)
    assert run_seal.unseal(key, sealed) == record
    assert run_seal.unseal(other, sealed) is None
    assert run_seal.unseal(key, sealed + " ") is None
    assert run_seal.unseal(key, record) is None
    assert run_seal.unseal(key, None) is None
    assert run_seal.unseal(key, "0" * 64 + run_seal.SEPARATOR + record) is None
