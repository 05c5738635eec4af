"""Output formats of ``score`` and ``demo``: one entry each, the one place a format is known.

A format opens a :class:`Sink` for a :class:`SinkRequest`; the sink takes the reports one
at a time in input order, then the end of the run (errors, totals), and writes the same
bytes whether the reports come from this process, ``--jobs N`` workers or a cluster.
``streamed`` formats write a line per set (flushed, so an unfinished cluster run can be
taken up again); ``read_back`` says how ``--resume`` reads what such a file already holds
(:mod:`codequorum.render.resume`); the others keep what they need of each set (the JSON
document writes each set at once, the table keeps its rows, the page its records in a
temporary file) and write the rest at the end. The figures across the sets are summed as
the sets pass.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

from codequorum.core.errors import UserError
from codequorum.core.report import StabilityReport
from codequorum.core.safe_text import safe_text
from codequorum.ingest.version_files import ReadError
from codequorum.judge.overall import OverallAccumulator
from codequorum.pipeline.risk_level import RiskFields
from codequorum.render import csv_out, jsonl_out
from codequorum.render.html_report import HtmlPage, page_end
from codequorum.render.json_out import JsonDocumentWriter
from codequorum.render.named import by_name, help_words
from codequorum.render.outfile import STDOUT, open_output, open_stream
from codequorum.render.table import TableRow, print_table, table_row
from codequorum.render.terminal import color_enabled, make_console


@dataclass(frozen=True)
class SinkRequest:
    """How the output is asked for: where, and the options the formats read."""

    path: str | None = None                 # ``-o FILE``; None or ``-``: standard output
    color: str = "auto"                     # the table's ``--color`` mode
    matrices: bool = False                  # JSON and jsonl: the full pair matrices
    reasons: bool = False                   # table: the verdict's reason in each row
    title: str | None = None                # table: a title above it
    compare: tuple[str, Mapping[str, Any]] | None = None   # html: (name, JSON report)
    incremental: bool = False               # streamed formats write each line as it comes
    append: bool = False                    # ... after what the file holds (``--resume``)
    explain_shape: bool = True              # table: what `stable` means where nothing ran


@dataclass(frozen=True)
class RunEnd:
    """What a sink learns once every set is in (``risk_levels``: per model, the rate of
    wrong kept versions its sets implied, where the run set their risk level:
    :meth:`codequorum.pipeline.risk_level.RunLevel.summary`)."""

    errors: Sequence[ReadError] = ()
    interrupted: bool = False
    total: int = 0
    risk_levels: Mapping[str, Mapping[str, Any]] | None = None


def _overall(across: OverallAccumulator, end: RunEnd) -> dict[str, Any]:
    """``overall`` of the sets taken, with the run's risk levels when it set them."""
    out = across.result()
    if end.risk_levels:
        out["risk_levels"] = {name: dict(entry) for name, entry in end.risk_levels.items()}
    return out


class Sink(Protocol):
    """Where a run's reports go: one at a time, in input order, then the end."""

    written: int

    def add(self, report: StabilityReport, codes: Sequence[str] | None) -> None:
        """Take a set's report (``codes``: its versions, for the formats that show them)."""

    def finish(self, end: RunEnd) -> None:
        """Write what is left once every set is in (errors, totals, the held rows)."""


@dataclass(frozen=True)
class ReadBack:
    """How ``--resume`` reads a file a streamed format wrote."""

    #: ``(lines, path)`` -> the task ids already written, counted (a file of another
    #: format raises :class:`~codequorum.core.errors.UserError`).
    task_ids: Callable[[Iterator[str], str], Counter[str]]
    #: A task id as the format writes it: what :attr:`task_ids` counts.
    written_id: Callable[[str], str]
    #: A line -> the set's model as written, own risk and kind of evidence (None: a line
    #: without a risk of its own, or the header), so that the run's risk level can be set
    #: again from what the file holds.
    risk_of: Callable[[str], tuple[str | None, float, str] | None]
    #: ``(line, fields)`` -> the line with its risk, step, range and words replaced.
    with_risk: Callable[[str, RiskFields], str]


@dataclass(frozen=True)
class OutputFormat:
    """One ``--format`` of ``score`` and ``demo``."""

    name: str
    help: str                                   # its words in ``--format``'s help
    open: Callable[[SinkRequest], contextlib.AbstractContextManager[Sink]]
    streamed: bool = False                      # a line per set, flushed
    needs_matrices: bool = False                # keeps the pair matrices (html's heatmaps)
    read_back: ReadBack | None = None           # ``--resume`` can append to it
    terminal: bool = False                      # laid out for a person at a terminal
    suffixes: tuple[str, ...] = ()              # ``-o FILE`` endings that ask for it
    page: bool = False                          # a page to open, not text to read

    @property
    def resumable(self) -> bool:
        """Whether ``--resume`` can take up a file of this format."""
        return self.read_back is not None


# ----------------------------------------------------------------------------- the sinks


class _Lines:
    """A line (or CSV row) per set, flushed as it is written."""

    def __init__(self, out: TextIO, write: Callable[[TextIO, StabilityReport], None]) -> None:
        self.out, self.write = out, write
        self.written = 0

    def add(self, report: StabilityReport, codes: Sequence[str] | None) -> None:
        self.write(self.out, report)
        self.out.flush()  # so that a killed run can be resumed
        self.written += 1

    def finish(self, end: RunEnd) -> None:
        """Nothing is left to write."""


@contextlib.contextmanager
def _lines(request: SinkRequest, write: Callable[[TextIO, StabilityReport], None],
           header: Callable[[TextIO], None] | None = None) -> Iterator[Sink]:
    """A streamed format's sink: written as lines come (appended with ``--resume``), or,
    for a run that hands over every set at the end, at once like any other output."""
    opened = (open_stream(request.path, request.append) if request.incremental
              else open_output(request.path))
    with opened as out:
        if header is not None and not (request.append and _has_line(request.path)):
            header(out)  # even when no set is scored
            out.flush()
        yield _Lines(out, write)


def _has_line(path: str | None) -> bool:
    """Whether the file being resumed already starts with a whole line (its header)."""
    if path is None or path == STDOUT:
        return False
    try:
        with open(path, "rb") as stream:
            return stream.readline().endswith(b"\n")
    except OSError:
        return False


def _open_jsonl(request: SinkRequest) -> contextlib.AbstractContextManager[Sink]:
    def write(out: TextIO, report: StabilityReport) -> None:
        out.write(jsonl_out.report_line(report, request.matrices))

    return _lines(request, write)


def _open_csv(request: SinkRequest) -> contextlib.AbstractContextManager[Sink]:
    def write(out: TextIO, report: StabilityReport) -> None:
        csv_out.write_csv([report], out, header=False)

    def header(out: TextIO) -> None:
        csv_out.write_csv([], out)

    return _lines(request, write, header)


class _Json:
    """The JSON document, each set written as it comes, the end at the end."""

    def __init__(self, out: TextIO, matrices: bool) -> None:
        self.writer = JsonDocumentWriter(out, include_matrices=matrices)
        self.across = OverallAccumulator()
        self.written = 0

    def add(self, report: StabilityReport, codes: Sequence[str] | None) -> None:
        self.across.add(report)
        self.writer.add(report)
        self.written += 1

    def finish(self, end: RunEnd) -> None:
        self.writer.finish(end.errors, interrupted=end.interrupted, total=end.total,
                           overall=_overall(self.across, end))


@contextlib.contextmanager
def _open_json(request: SinkRequest) -> Iterator[Sink]:
    with open_output(request.path) as out:
        yield _Json(out, request.matrices)


class _Table:
    """The table: each set's row values kept until the end."""

    def __init__(self, request: SinkRequest) -> None:
        self.request = request
        self.rows: list[TableRow] = []
        self.across = OverallAccumulator()
        self.written = 0

    def add(self, report: StabilityReport, codes: Sequence[str] | None) -> None:
        self.across.add(report)
        self.rows.append(table_row(report))
        self.written += 1

    def finish(self, end: RunEnd) -> None:
        if not self.rows and self.request.path in (None, "-"):
            return  # nothing read: the errors say why, an empty frame would say nothing
        with open_output(self.request.path) as stream:
            console = make_console(stream, color_enabled(self.request.color, stream))
            print_table(self.rows, console, title=self.request.title,
                        reasons=self.request.reasons, overall=_overall(self.across, end),
                        explain_shape=self.request.explain_shape)


@contextlib.contextmanager
def _open_table(request: SinkRequest) -> Iterator[Sink]:
    yield _Table(request)


class _Page:
    """The html page: each set's compact record kept (in a temporary file) until the end."""

    def __init__(self, page: HtmlPage, request: SinkRequest) -> None:
        self.page, self.request = page, request
        self.across = OverallAccumulator()
        self.written = 0

    def add(self, report: StabilityReport, codes: Sequence[str] | None) -> None:
        self.across.add(report)
        self.page.add(report, codes)
        self.written += 1

    def finish(self, end: RunEnd) -> None:
        with open_output(self.request.path) as stream:
            self.page.write(stream, page_end(end.errors, interrupted=end.interrupted,
                                             total=end.total,
                                             overall=_overall(self.across, end),
                                             compare=self.request.compare))


@contextlib.contextmanager
def _open_html(request: SinkRequest) -> Iterator[Sink]:
    with HtmlPage() as page:
        yield _Page(page, request)


# ----------------------------------------------------------------------------- the registry


OUTPUT_FORMATS: tuple[OutputFormat, ...] = (
    OutputFormat("table", "table (the default, unless -o FILE ends in .json, .jsonl, .csv "
                 "or .html: then that format)", _open_table, terminal=True),
    OutputFormat("json", "json", _open_json, suffixes=(".json",)),
    OutputFormat("jsonl", "jsonl (one report a line)", _open_jsonl, streamed=True,
                 read_back=ReadBack(jsonl_out.task_ids, safe_text, jsonl_out.risk_of,
                                    jsonl_out.with_risk), suffixes=(".jsonl", ".ndjson")),
    OutputFormat("csv", "csv", _open_csv, streamed=True,
                 read_back=ReadBack(csv_out.task_ids, csv_out.text_cell, csv_out.risk_of,
                                    csv_out.with_risk), suffixes=(".csv",)),
    OutputFormat("html", "html (one page of plots and tables; see --compare)", _open_html,
                 needs_matrices=True, suffixes=(".html", ".htm"), page=True),
)
#: The names ``--format`` takes, in the registry's order.
FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in OUTPUT_FORMATS)
#: The format without ``--format`` or an ``-o FILE`` ending that names one.
DEFAULT_FORMAT = OUTPUT_FORMATS[0]


def format_for(name: str | None, path: str | None) -> OutputFormat:
    """The format ``--format`` names; without one, the format ``-o FILE``'s ending asks
    for (``report.html``, ``sets.csv``: a file is not written as a table its name belies),
    else the table. Raises :class:`UnknownFormatError` for an unknown name."""
    if name is not None:
        return output_format(name)
    ending = os.path.splitext(path or "")[1].lower()
    return next((f for f in OUTPUT_FORMATS if ending in f.suffixes), DEFAULT_FORMAT)


def refuse_page_on_terminal(fmt: OutputFormat, path: str | None,
                            stream: TextIO | None = None) -> None:
    """A page (html) written to a terminal is screenfuls of markup: refused with a
    :class:`PageOnTerminal` saying to name a file (a pipe or a redirect still takes it)."""
    out = sys.stdout if stream is None else stream
    if fmt.page and path in (None, STDOUT) and out.isatty():
        raise PageOnTerminal(f"--format {fmt.name} writes a page to open in a browser, not "
                             f"text for the terminal: name a file, e.g. -o report.html "
                             "(or redirect the output)")


class PageOnTerminal(UserError):
    """A page asked for on a terminal: bad usage, as an unknown format is."""

    exit_code = 2


def output_format(name: str) -> OutputFormat:
    """The format named ``name``, or :class:`UnknownFormatError` (exit status 2)."""
    return by_name(OUTPUT_FORMATS, name)


def formats_help() -> str:
    """``--format``'s help: every format's words, ``a, b, c or d``."""
    return help_words(OUTPUT_FORMATS)


def names_of(formats: Sequence[OutputFormat]) -> str:
    """The formats' names as ``a or b``."""
    return " or ".join(f.name for f in formats)

