"""Output injection: names and text from a repository (task ids, file names, function
names) reach a spreadsheet, a terminal, a log or an editor as text, never as a formula,
an escape sequence, bidi reordering or rich markup."""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from codequorum.core.model import Version
from codequorum.ingest.store import VersionStore, default_store_path
from codequorum.render.csv_out import text_cell

from ..lsp.conftest import lsp_session
from ..lsp.helpers import command, wait_for
from ._pathological import GOOD, run_cli, write_jsonl

#: What must never reach a terminal raw: C0/C1 controls (ESC, BEL, CR...), bidi overrides
#: and isolates, zero-width characters.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069]")

FORMULAS = ["=HYPERLINK(\"http://evil\",\"x\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)",
            "\tTAB", "\r=1+1", "=1+1\n=2"]
SGR = re.compile("\x1b\\[[0-9;]*m")
ESCAPES = ["\x1b]0;pwned\x07title", "\x1b[2K\x1b[1Aerase", "abc\u202egnp.exe", "zero\u200bwidth"]
TEXT_COLUMNS = ("task_id", "language", "status", "recommended_by", "recommendation", "verdict",
                "verdict_message", "message")
MARKUP = ["[bold red]loud[/bold red]", "[link=http://evil]click[/link]", "[/]"]


def _sets(ids: list[str]) -> list[dict[str, object]]:
    return [{**GOOD, "task_id": task_id} for task_id in ids]


def test_csv_cells_that_would_start_a_formula_are_text(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", _sets([*FORMULAS, "plain-id", "42"]))
    run = run_cli(["score", str(path), "--format", "csv"])
    run.bounded()
    assert run.status == 0
    rows = list(csv.DictReader(io.StringIO(run.out)))
    ids = [row["task_id"] for row in rows]
    assert ids == ["'=HYPERLINK(\"http://evil\",\"x\")", "'+cmd|' /C calc'!A0", "'-2+3",
                   "'@SUM(A1:A2)", "\\tTAB", "\\r=1+1", "'=1+1\\n=2", "plain-id", "42"]
    for row in rows:  # no text cell starts a formula; figures stay numbers
        assert not any(row[c].startswith(("=", "+", "-", "@", "\t", "\r")) for c in TEXT_COLUMNS)
        assert 0.0 <= float(row["jsd_struct_ordered"]) <= 1.0
    assert text_cell(-0.5) == "'-0.5"  # text that looks like a negative number is still text


def test_terminal_escapes_and_bidi_in_task_ids_are_escaped(tmp_path: Path) -> None:
    bad = {"task_id": ESCAPES[0], "samples": "not a list"}
    path = write_jsonl(tmp_path / "s.jsonl", [*_sets(ESCAPES), bad])
    for fmt in ("table", "json", "jsonl", "csv", "html"):
        run = run_cli(["score", str(path), "--format", fmt, "--color", "always", "--reasons"])
        run.bounded()
        # the table's own colours are the only escape sequences
        shown = SGR.sub("", run.out) if fmt == "table" else run.out
        assert not RAW.search(shown), fmt
        assert not RAW.search(run.err), fmt
        assert "(\\x1b]0;pwned\\x07title)" in run.err, fmt
    run = run_cli(["score", str(path), "--format", "table", "--color", "never"])
    assert "\\u202egnp.exe" in run.out and "\u202e" not in run.out


def test_rich_markup_in_task_ids_is_shown_as_written(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", _sets(MARKUP))
    run = run_cli(["score", str(path), "--color", "always"])
    run.bounded()
    assert run.status == 0
    plain = SGR.sub("", run.out)
    for task_id in MARKUP:
        assert task_id in plain
    assert "\x1b]8;" not in run.out  # no hyperlink escape made from [link=...]


def _evil_repository(root: Path) -> list[Path]:
    """Files whose names rewrite the title, erase lines and reorder text, each with a
    function that has stored versions."""
    (root / ".git").mkdir(parents=True)
    names = ["ti\x1b]0;pwned\x07tle.py", "er\x1b[2K\x1b[1Aase.py", "rev\u202egnp.py"]
    paths = []
    with VersionStore.open(default_store_path(root)) as store:
        for name in names:
            path = root / name
            path.write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
            store.add(name, "python", "f", [Version(code=c) for c in GOOD["samples"]])
            paths.append(path)
    return paths


def test_check_verbose_escapes_file_names(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    paths = _evil_repository(root)
    for args in (["-v"], ["-vv"], ["--format", "json"], ["--format", "sarif"]):
        run = run_cli(["check", str(root), "--fail-on", "never", *args])
        run.bounded()
        assert run.status == 0, run.err
        assert not RAW.search(run.err.replace("\n", "")), args
        assert not RAW.search(run.out.replace("\n", "")), args
    run = run_cli(["check", str(root), "-v", "--fail-on", "never"])
    logged = [line for line in run.err.splitlines() if "INFO" in line and "`f`" in line]
    assert len(logged) == len(paths)
    assert any("ti\\x1b]0;pwned\\x07tle.py" in line for line in logged)
    assert any("rev\\u202egnp.py" in line for line in logged)


def test_log_lines_are_one_line_and_escaped(
        safe_log: tuple[logging.Logger, io.StringIO]) -> None:
    log, stream = safe_log
    log.warning("file %s", "a\nWARNING forged line\x1b[31m")
    try:
        raise ValueError("bad\x1b]0;x\x07")
    except ValueError:
        log.exception("failed on %s", "\u202eevil")
    lines = stream.getvalue().splitlines()
    assert lines[0] == "WARNING file a\\nWARNING forged line\\x1b[31m"
    assert lines[1] == "ERROR failed on \\u202eevil"
    assert lines[-1] == "ValueError: bad\\x1b]0;x\\x07"


async def test_the_server_shows_names_escaped(tmp_path: Path) -> None:
    # a client may send a URI as it likes: the name in it reaches the user escaped
    root = tmp_path / "ws"
    root.mkdir()
    uri = f"file://{root}/big\x1b]0;pwned\x07\u202e.py"
    async with lsp_session(root) as client:
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                                 text="x = 1\n" * 400_000)))
        await wait_for(lambda: any("larger than 2 MB" in m.message for m in client.messages))
        (message,) = [m.message for m in client.messages if "larger than" in m.message]
        assert not RAW.search(message)
        assert "big\\x1b]0;pwned\\x07\\u202e.py is larger than 2 MB" in message
        closed = f"file://{root}/gone\x1b[2J\u202e.py"  # a command's error quotes the URI
        with pytest.raises(JsonRpcException) as refused:
            await command(client, "codequorum.analyze", closed, "f")
        assert not RAW.search(str(refused.value))
        assert "gone\\x1b[2J\\u202e.py: no such file" in str(refused.value)


def test_a_versions_output_in_the_advice_carries_no_live_link_or_tag(tmp_path: Path) -> None:
    """``check --dynamic``'s advice quotes what a version returns: a markdown link into an
    editor command and HTML tags come out broken, in the text and in the JSON, as the
    finding's own message has them."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "lib.py").write_text(
        'def greet(name):\n    """Greet.\n\n    >>> greet(\'bob\')\n    \'hi bob\'\n    """\n'
        "    return 'hi ' + name\n")
    versions = ["def greet(name):\n    return 'hi %s' % name\n",
                "def greet(name):\n    return '[click](command:workbench.action.terminal.new)"
                " <b>x</b> ' + name\n",
                "def greet(name):\n    return 'hi ' + name\n"]
    (tmp_path / "v.json").write_text(json.dumps(versions))
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    cq = [sys.executable, "-m", "codequorum"]
    subprocess.run([*cq, "sample", "lib.py", "-f", "greet", "--from", "v.json", "-q"],
                   cwd=tmp_path, env=env, check=True, timeout=60)
    for fmt in ("text", "json"):
        done = subprocess.run([*cq, "check", "lib.py", "--dynamic", "--no-tsed", "--format",
                               fmt, "--fail-on", "never"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300, check=False)
        said = done.stdout if fmt == "text" else json.dumps(
            json.loads(done.stdout)["functions"][0]["advice"])
        assert "[click] (command:workbench.action.terminal.new)" in said, said
        assert "](command:" not in said and "<b>" not in said, said
