"""``check``'s finding formats: the registry is the one place a format is named; the text
format's advice under a function's findings."""

from __future__ import annotations

import io

from codequorum.cli.main import command_parsers
from codequorum.options.declarations import OPTIONS
from codequorum.render.check_out import (
    ADVICE_INDENT,
    FINDING_FORMATS,
    CheckRun,
    Located,
    formats_help,
    write,
)


def test_check_s_format_option_is_read_from_the_registry() -> None:
    (declared,) = [o for o in OPTIONS if o.name == "format" and "check" in o.commands]
    assert declared.values == tuple(f.name for f in FINDING_FORMATS) == ("text", "json", "sarif")
    assert declared.help == formats_help() == "text (default), json or sarif"
    parser = command_parsers()["check"]
    (action,) = [a for a in parser._actions if "--format" in a.option_strings]
    assert (action.help, action.default) == (formats_help(), "text")


def _located(function: str, code: str, line: int) -> Located:
    return Located(path="m.py", line=line, column=5, end_line=line, end_column=9,
                   severity="warning", code=code, message=f"{code} of {function}",
                   function=function, figure=None, versions=(0, 1), stored=3, report={})


def _run_of_two() -> CheckRun:
    run = CheckRun(files=1, files_checked=1, functions_checked=2)
    run.findings = [_located("f", "divergent-outputs", 1), _located("f", "outlier-current", 1),
                    _located("g", "divergent-outputs", 9)]
    run.functions = [
        {"path": "m.py", "function": "f", "advice": ["keep version 2: \x1b[31mred", "uncertain"]},
        {"path": "m.py", "function": "g", "advice": []},
    ]
    return run


def test_the_advice_is_indented_under_a_functions_last_finding() -> None:
    out = io.StringIO()
    write(_run_of_two(), "text", out)
    assert out.getvalue().splitlines() == [
        "m.py:1:5: warning divergent-outputs divergent-outputs of f",
        "m.py:1:5: warning outlier-current outlier-current of f",
        f"{ADVICE_INDENT}keep version 2: \\x1b[31mred",  # no escape reaches the terminal
        f"{ADVICE_INDENT}uncertain",
        "m.py:9:5: warning divergent-outputs divergent-outputs of g",
        "checked 2 functions in 1 file: 3 warnings",
    ]


def test_quiet_prints_the_findings_without_advice() -> None:
    out = io.StringIO()
    write(_run_of_two(), "text", out, quiet=True)
    assert [line[:4] for line in out.getvalue().splitlines()] == ["m.py"] * 3
