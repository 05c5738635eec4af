"""What ``codequorum check`` found, and its finding formats (``--format``): one
:class:`FindingFormat` entry each in :data:`FINDING_FORMATS`, the one place a format is
known (``--format``'s choices and help are read from it)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from codequorum import __version__
from codequorum.core.report import SEVERITIES, warns
from codequorum.core.safe_text import MESSAGE_LIMIT, plain_message, safe_text, uri_reference
from codequorum.core.words import count
from codequorum.render.ansi import SEVERITY_STYLE, paint
from codequorum.render.findings import RANK
from codequorum.render.json_out import safe_values
from codequorum.render.named import by_name, help_words

#: SARIF levels: the severity's own name when it warns, else a note.
SARIF_LEVEL: dict[str, str] = {name: name if warns(name) else "note" for name in SEVERITIES}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class Located:
    """A :class:`~codequorum.render.findings.Finding` of one function where ``check``
    prints it: the file, at the function's name (1-based line and column, the column
    counted in characters), with the figures its formats show."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    severity: str
    code: str
    message: str
    function: str
    figure: float | None
    versions: tuple[int, ...]     # the versions the finding is about (0-based)
    stored: int                   # how many versions of the function are stored
    report: dict[str, Any]

    def text(self, color: bool = False) -> str:
        """``path:line:col: severity code message``, made safe to print (the message may
        quote what a version printed); with ``color`` as linters colour it: the path bold,
        the severity and code red, yellow or blue."""
        sep = paint(":", "cyan", enabled=color)
        where = (f"{paint(safe_text(self.path), 'bold', enabled=color)}{sep}{self.line}{sep}"
                 f"{self.column}{sep}")
        what = paint(f"{self.severity} {self.code}", *SEVERITY_STYLE.get(self.severity, ()),
                     enabled=color)
        return f"{where} {what} {safe_text(self.message)}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; ``report`` is the function's report summary."""
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "function": self.function,
            "figure": self.figure,
            "versions": list(self.versions),
            "stored": self.stored,
            "report": self.report,
        }


@dataclass
class CheckRun:
    """Everything one run found and counted."""

    findings: list[Located] = field(default_factory=list)
    functions: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    files: int = 0
    files_skipped: int = 0
    files_checked: int = 0
    functions_checked: int = 0
    functions_without_versions: int = 0
    functions_too_few: int = 0
    failures: int = 0
    missing_paths: int = 0
    store: str = ""
    store_missing: bool = False
    min_versions: int = 2

    def error(self, message: str) -> None:
        """A note that is a problem (shown even with ``--quiet``)."""
        self.notes.append(message)
        self.errors.append(message)

    def counts(self) -> dict[str, int]:
        """Findings per severity."""
        out = {name: 0 for name in RANK}
        for f in self.findings:
            out[f.severity] = out.get(f.severity, 0) + 1
        return out

    def summary(self) -> dict[str, Any]:
        """JSON-ready counts."""
        return {
            "files": self.files,
            "files_skipped": self.files_skipped,
            "files_checked": self.files_checked,
            "functions_checked": self.functions_checked,
            "functions_without_versions": self.functions_without_versions,
            "functions_with_too_few_versions": self.functions_too_few,
            "failures": self.failures,
            "findings": len(self.findings),
            "by_severity": self.counts(),
            "store": self.store,
            "store_missing": self.store_missing,
        }

    def summary_line(self) -> str:
        """One line: what was checked and what was found, in words that stay true when
        nothing was (``no function in 59 files has stored versions``)."""
        if self.store_missing:
            return f"no version store at {safe_text(self.store)}; nothing to check"
        if not self.files:
            return "no source files to check"
        read = self.files - self.files_skipped
        if not read:
            return f"nothing checked: {count(self.files_skipped, 'file')} skipped"
        parts: list[str] = []
        files = count(read, "file")
        if self.functions_checked:
            counts = self.counts()
            found = ", ".join(count(n, name, _plural_severity(name)) for name, n
                              in counts.items() if n) or "no findings"
            where = (files if self.files_checked == read
                     else f"{self.files_checked:,} of {files}")
            parts.append(f"checked {count(self.functions_checked, 'function')} in {where}: "
                         f"{found}")
        elif self.functions_too_few:
            parts.append(f"no function in {files} has {self.min_versions} or more stored "
                         "versions")
        elif self.failures:
            parts.append(f"no function in {files} could be checked")
        elif self.functions_without_versions:
            parts.append(f"no function in {files} has stored versions")
        else:
            parts.append(f"no functions in {files}")
        if self.functions_without_versions and (self.functions_checked or self.functions_too_few
                                               or self.failures):
            parts.append(f"{self.functions_without_versions:,} without versions skipped")
        if self.functions_too_few:
            parts.append(f"{count(self.functions_too_few, 'function')} with fewer than "
                         f"{count(self.min_versions, 'stored version')} skipped")
        if self.failures:
            parts.append(f"{self.failures:,} could not be analysed")
        if self.files_skipped:
            parts.append(f"{count(self.files_skipped, 'file')} skipped")
        return "; ".join(parts)

    def exit_code(self, fail_on: str) -> int:
        """1 when a finding at or above ``fail_on`` exists (``not-run``: a warning, an
        error or a ``not-run`` finding), 2 when a path did not exist, else 0."""
        if self.missing_paths:
            return 2
        if fail_on == "never":
            return 0
        if fail_on == "not-run":  # warnings and errors fail, and behaviour that did not run
            if any(f.code == "not-run" for f in self.findings):
                return 1
            fail_on = "warning"
        limit = RANK[fail_on]
        return 1 if any(RANK.get(f.severity, 4) <= limit for f in self.findings) else 0


def _plural_severity(severity: str) -> str:
    """The plural of a severity: ``warnings``, ``information``."""
    return severity if severity == "information" else f"{severity}s"


def _sarif(run: CheckRun) -> dict[str, Any]:
    """The findings as a SARIF 2.1.0 log (one run, one rule per finding code)."""
    rules = sorted({f.code for f in run.findings})
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "codequorum",
                "version": __version__,
                "rules": [{"id": code, "name": code} for code in rules],
            }},
            "results": [{
                "ruleId": f.code,
                "ruleIndex": rules.index(f.code),
                "level": SARIF_LEVEL.get(f.severity, "note"),
                # SARIF's plain text makes [text](target) a link: none left live
                "message": {"text": plain_message(f.message, MESSAGE_LIMIT)},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": uri_reference(f.path)},
                    "region": {"startLine": f.line, "startColumn": f.column,
                               "endLine": f.end_line, "endColumn": f.end_column},
                }}],
                "properties": {"function": plain_message(f.function), "figure": f.figure,
                               "versions": f.stored},
            } for f in run.findings],
        }],
    }


#: How the advice under a function's findings is set off: indented, so that a tool
#: reading ``path:line:col:`` lines reads the findings only.
ADVICE_INDENT = "    "


def _advice(run: CheckRun) -> dict[tuple[str, str], list[str]]:
    """Each run function's advice lines (the version to keep, how far to trust it, the
    input where it parts ways), by ``(path, function)``."""
    return {(str(f["path"]), str(f["function"])): [str(a) for a in f.get("advice") or []]
            for f in run.functions}


def _write_text(run: CheckRun, out: TextIO, color: bool, quiet: bool) -> None:
    """Finding lines, each function's advice indented under its last finding (not when
    ``quiet``), and a summary line (not when ``quiet``)."""
    advice = {} if quiet else _advice(run)
    for k, finding in enumerate(run.findings):
        print(finding.text(color), file=out)
        key = (finding.path, finding.function)
        following = run.findings[k + 1] if k + 1 < len(run.findings) else None
        if following is None or (following.path, following.function) != key:
            for line in advice.get(key, []):
                print(f"{ADVICE_INDENT}{safe_text(line)}", file=out)
    if not quiet:
        print(run.summary_line(), file=out)


def _write_json(run: CheckRun, out: TextIO, color: bool, quiet: bool) -> None:
    """The findings, the summary, the functions and the notes as one JSON document."""
    doc = {"findings": [f.to_dict() for f in run.findings], "summary": run.summary(),
           "functions": list(run.functions), "notes": list(run.notes)}
    json.dump(safe_values(doc), out, indent=2, allow_nan=False)
    out.write("\n")


def _write_sarif(run: CheckRun, out: TextIO, color: bool, quiet: bool) -> None:
    """The findings as one SARIF document."""
    json.dump(safe_values(_sarif(run)), out, indent=2, allow_nan=False)
    out.write("\n")


@dataclass(frozen=True)
class FindingFormat:
    """One ``--format`` of ``check``: the one place a finding format is known."""

    name: str
    help: str                                              # its words in ``--format``'s help
    write: Callable[[CheckRun, TextIO, bool, bool], None]  # (run, out, color, quiet)
    document: bool                                         # written even with no store


FINDING_FORMATS: tuple[FindingFormat, ...] = (
    FindingFormat("text", "text (default)", _write_text, document=False),
    FindingFormat("json", "json", _write_json, document=True),
    FindingFormat("sarif", "sarif", _write_sarif, document=True),
)
#: The names ``check --format`` takes.
FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in FINDING_FORMATS)


def formats_help() -> str:
    """``--format``'s help: every format's words, ``a, b or c``."""
    return help_words(FINDING_FORMATS)


def finding_format(name: str) -> FindingFormat:
    """The format named ``name``, or :class:`UnknownFormatError` (exit status 2)."""
    return by_name(FINDING_FORMATS, name)


def write(run: CheckRun, fmt: str | FindingFormat, out: TextIO, *, color: bool = False,
          quiet: bool = False) -> None:
    """Print the run in ``fmt`` (a name or a format). Every string is made safe to print
    first (:func:`safe_values`)."""
    found = finding_format(fmt) if isinstance(fmt, str) else fmt
    found.write(run, out, color, quiet)
