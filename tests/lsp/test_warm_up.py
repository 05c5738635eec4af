"""The language server's start-up warm-up of the compiled metric kernels."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from codequorum.lsp import server as lsp_server
from codequorum.metrics import structural, tree_edit


def test_warm_up_loads_both_kernels() -> None:
    lsp_server.warm_up_kernels()
    assert structural._kernel() is not None
    assert tree_edit._kernel.cache_info().currsize == 1


def test_a_failing_warm_up_is_logged_at_debug_and_does_not_stop_the_other(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    warmed: list[str] = []

    def broken() -> bool:
        raise OSError("no cache directory")

    monkeypatch.setattr(structural, "warm_up", broken)
    monkeypatch.setattr(tree_edit, "warm_up", lambda: warmed.append("TSED"))
    with caplog.at_level(logging.DEBUG, logger=lsp_server.log.name):
        lsp_server.warm_up_kernels()
    assert warmed == ["TSED"]
    [record] = [r for r in caplog.records if r.name == lsp_server.log.name]
    assert record.levelno == logging.DEBUG
    assert "structural" in record.getMessage()
    assert record.exc_info is not None and isinstance(record.exc_info[1], OSError)


def test_the_server_does_not_wait_for_the_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    started = threading.Event()

    def slow(wait: object) -> None:
        started.set()
        release.wait(10)

    monkeypatch.setattr(lsp_server, "warm_up_kernels", slow)
    lsp_server._start_warm_up()  # returns while the warm-up still runs
    assert started.wait(10)
    [thread] = [t for t in threading.enumerate() if t.name == "codequorum-warm-up"]
    assert thread.daemon and thread.is_alive()
    release.set()
    thread.join(10)
    assert not thread.is_alive()


def test_the_warm_up_waits_for_the_client_before_each_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said: list[str] = []
    monkeypatch.setattr(structural, "warm_up", lambda: said.append("structural"))
    monkeypatch.setattr(tree_edit, "warm_up", lambda: said.append("TSED"))
    lsp_server.warm_up_kernels(lambda: said.append("wait"))
    assert said == ["wait", "wait", "structural", "wait", "TSED"]  # numba first, unsaid


def test_the_client_is_quiet_a_second_after_its_last_message_and_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    protocol = lsp_server.server.protocol
    assert isinstance(protocol, lsp_server.CodequorumProtocol)
    now = time.monotonic()
    monkeypatch.setattr(protocol, "heard", now)
    assert not protocol.quiet(lsp_server.QUIET)
    monkeypatch.setattr(protocol, "heard", now - 2 * lsp_server.QUIET)
    assert protocol.quiet(lsp_server.QUIET)
    monkeypatch.setattr(protocol, "begun", {7: now})  # a request not answered yet
    assert not protocol.quiet(lsp_server.QUIET)
    monkeypatch.setattr(protocol, "begun", {})
    lsp_server.server.wait_quiet()  # returns at once: quiet
