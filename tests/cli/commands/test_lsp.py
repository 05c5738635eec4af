"""``codequorum lsp``: its request, read from the parsed arguments at its door (the
server itself is tested over stdio in tests/lsp/)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codequorum.cli.commands.lsp import LspRequest, lsp_request
from codequorum.cli.main import parse_arguments
from codequorum.core.errors import UserError


def test_the_request_is_read_from_the_parsed_arguments(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = parse_arguments(["lsp", "--tcp", "[::1]:2087", "--log-level", "DEBUG",
                            "--log-file", "server.log", "--isolated"])
    assert lsp_request(args) == LspRequest(log_level="DEBUG", log_file=tmp_path / "server.log",
                                           tcp=("::1", 2087))
    assert lsp_request(parse_arguments(["lsp", "--isolated"])) == LspRequest(
        log_level="WARNING", log_file=None, tcp=None)


def test_a_bad_address_or_log_file_stops_at_the_door(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    with pytest.raises(UserError, match="--tcp expects HOST:PORT"):
        lsp_request(parse_arguments(["lsp", "--tcp", "2087", "--isolated"]))
    os.symlink(tmp_path.parent / "elsewhere.log", tmp_path / "out.log")
    with pytest.raises(UserError):
        lsp_request(parse_arguments(["lsp", "--log-file", "out.log", "--isolated"]))
