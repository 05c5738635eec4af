"""A CI job reads commands out of what its steps print: GitHub Actions' runner takes a line
that starts (blanks skipped) with ``::name ...::`` and, in its older form, ``##[name ...]``
anywhere in a line, for ``add-mask``, ``stop-commands``, ``error`` and ``set-output``, which
sets a step's output a later step may paste into a script. A repository names its files,
functions and task ids, and its store holds version text: ``check``, ``score`` and
``export`` run in a pull request's job print none of it as a command. The rule below is the
runner's (``ActionCommand.TryParseV2`` and ``TryParse``)."""

from __future__ import annotations

import io
import json
import logging
import re
from pathlib import Path

import pytest

from codequorum.core.model import Version
from codequorum.core.safe_text import ci_inert, json_inert, safe_text
from codequorum.ingest.store import VersionStore, default_store_path

from ._pathological import GOOD, run_cli, write_jsonl

#: How the runner reads a line: ``::`` at its start once blanks are trimmed, or ``##[``
#: (Azure Pipelines: ``##vso[``) anywhere.
COMMAND = re.compile(r"^\s*::|##(?:vso)?\[")
NAMES = ["::error::pwned", "  ::add-mask::x", "a ##[set-output name=verdict;]passed",
         "##vso[task.setvariable variable=ok]yes", "::stop-commands::t0k3n"]
DIVERGENT = [
    "def f(x):\n    total = 0\n    for i in range(x):\n        total += i * i\n    return total\n",
    "def f(x):\n    return sum(i * i for i in range(x))\n",
    "def f(x):\n    if x <= 0:\n        return 0\n    return f(x - 1) + (x - 1) ** 2\n",
    "def f(x):\n    return {x: [x, (x, x)]}\n  # ##[add-mask]code\n",
]


def commands(text: str) -> list[str]:
    """The lines of ``text`` the runner would take for commands."""
    return [line for line in text.splitlines() if COMMAND.search(line)]


@pytest.mark.parametrize("name", NAMES)
def test_one_line_of_safe_text_holds_no_command_and_reads_the_same(name: str) -> None:
    shown = safe_text(name)
    assert not commands(shown) and not commands(ci_inert(name))
    assert shown.replace("\\x3a", ":").replace("\\x23", "#") == name
    assert safe_text("ok::fine #[x] # #[y]") == "ok::fine #[x] # #[y]"


def test_json_holds_no_command_and_decodes_the_same() -> None:
    text = json.dumps({"code": DIVERGENT[3], "ids": NAMES})
    assert commands(text) and not commands(json_inert(text))
    assert json.loads(json_inert(text)) == json.loads(text)


def _repository(root: Path) -> None:
    (root / ".git").mkdir(parents=True)
    with VersionStore.open(default_store_path(root)) as store:
        for name in ("::error::pwned.py", "##[add-mask]key.py"):
            (root / name).write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
            store.add(name, "python", "f", [Version(code=c) for c in DIVERGENT])


@pytest.mark.parametrize("args", [["-v"], ["--format", "sarif"]])
def test_check_prints_no_command_of_a_repositorys_names(tmp_path: Path,
                                                       args: list[str]) -> None:
    _repository(tmp_path / "repo")
    run = run_cli(["check", ".", "--fail-on", "never", *args], cwd=tmp_path / "repo")
    assert run.status == 0, run.err
    assert "pwned.py" in run.out + run.err
    assert not commands(run.out) and not commands(run.err), (run.out, run.err)


@pytest.mark.parametrize("fmt", ["table", "csv", "jsonl"])
def test_score_prints_no_command_of_a_sets_task_id(tmp_path: Path, fmt: str) -> None:
    bad = {"task_id": NAMES[2], "samples": "not a list"}
    path = write_jsonl(tmp_path / "s.jsonl",
                       [*({**GOOD, "task_id": name} for name in NAMES), bad])
    run = run_cli(["score", str(path), "--format", fmt, "--reasons" if fmt == "table"
                   else "--quiet"])
    assert "pwned" in run.out
    assert not commands(run.out) and not commands(run.err), (run.out, run.err)


def test_export_prints_no_command_of_a_stores_text_and_keeps_it(tmp_path: Path) -> None:
    _repository(tmp_path / "repo")
    run = run_cli(["export"], cwd=tmp_path / "repo")
    assert run.status == 0, run.err
    assert not commands(run.out) and not commands(run.err), (run.out, run.err)
    rows = [json.loads(line) for line in run.out.splitlines()]
    assert {row["file"] for row in rows} == {"::error::pwned.py", "##[add-mask]key.py"}
    assert DIVERGENT[3] in [v["code"] for row in rows for v in row["samples"]]


def test_the_prompt_sample_prints_holds_no_command_of_the_functions_text(tmp_path: Path) -> None:
    """``sample --print-prompt`` shows the function as the model would get it: a docstring
    line that is a runner's command is printed as text."""
    module = tmp_path / "mod.py"
    module.write_text('def f(x):\n    """Add one.\n\n::add-mask::secret\n'
                      '    ##[set-output name=a;]b\n    """\n    return x + 1\n',
                      encoding="utf-8")
    run = run_cli(["sample", str(module), "--function", "f", "--print-prompt"], cwd=tmp_path)
    assert run.status == 0, run.err
    assert "add-mask" in run.out and "set-output" in run.out  # the docstring, as text
    assert not commands(run.out) and not commands(run.err), (run.out, run.err)


def test_a_traceback_logged_holds_no_command_of_what_it_quotes(
        safe_log: tuple[logging.Logger, io.StringIO]) -> None:
    """A traceback at ``-vv`` quotes a version's or a file's text on lines of its own."""
    log, stream = safe_log
    try:
        raise ValueError("\n::add-mask::secret\n  ##[set-output name=ok;]yes")
    except ValueError:
        log.exception("failed")
    text = stream.getvalue()
    assert "add-mask" in text and "set-output" in text
    assert not commands(text), text
