"""Between the pieces of a whole read the watch's worker rests as long as the piece took while
the client is busy (a whole read takes half of the interpreter at most), briefly when it is
quiet; and the requests being answered go first."""

from __future__ import annotations

import time
from typing import Any, cast

import pytest

from codequorum.lsp.editor_watch import BUSY_SECONDS, YIELD_SECONDS, Watch, WatchClient
from codequorum.pipeline.watch.index import PIECE_PAUSE


def _rests(monkeypatch: pytest.MonkeyPatch, quiet: bool, took: float | None) -> list[float]:
    """The sleeps of one pause between pieces, after a piece that took ``took`` seconds
    (None: the worker never marked when it went back to reading)."""
    asked: list[float] = []

    def is_quiet(seconds: float) -> bool:
        asked.append(seconds)
        return quiet

    def unused(*_: object) -> Any:
        raise AssertionError("a pause between pieces only asks whether the client is busy")

    client = WatchClient(answering=lambda: False, quiet=is_quiet, show=unused,
                         warn_once=unused, ask=unused, capabilities=unused,
                         new_progress=unused, notify=unused)
    watch = Watch(client, cast(Any, None))  # no folder
    if took is not None:
        watch._resumed = time.monotonic() - took
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    watch._between_pieces()
    assert asked in ([], [BUSY_SECONDS])
    return slept


def test_a_busy_client_gets_as_long_a_rest_as_the_piece_took(
        monkeypatch: pytest.MonkeyPatch) -> None:
    first, rest = _rests(monkeypatch, quiet=False, took=0.05)
    assert first == PIECE_PAUSE
    assert 0.05 - PIECE_PAUSE <= rest <= YIELD_SECONDS


def test_a_quiet_client_leaves_the_read_its_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _rests(monkeypatch, quiet=True, took=0.05) == [PIECE_PAUSE]


def test_a_rest_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _rests(monkeypatch, quiet=False, took=None) == [PIECE_PAUSE,
                                                          YIELD_SECONDS - PIECE_PAUSE]
