"""``codequorum check``: lint source files against the versions kept in the version store.

For every function of the given files that has stored versions, the current code joins
them as one more version (origin ``current``), the set is analysed exactly as the editor
analyses it (both use :class:`~codequorum.pipeline.session.Session` and
:mod:`codequorum.render.findings`, so the store keys, the sample set and the messages are the
same), and each finding is
printed as ``path:line:col: severity code message``. The exit status follows
``--fail-on``, so the command fits CI jobs and pre-commit hooks.

Generated code is only parsed here; ``--dynamic`` runs the versions in the sandbox.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from codequorum.cli.analysis import from_request
from codequorum.cli.endpoint import asker_note, input_asker, propose_config
from codequorum.core import parsing
from codequorum.core.errors import (
    SandboxUnavailableError,
    UnknownFormatError,
    UnknownLanguageError,
    UserError,
)
from codequorum.core.limits import MAX_DOCUMENT_BYTES, InputLimitError
from codequorum.core.safe_paths import (
    UnreadableFile,
    guard,
    read_regular,
    real_path,
    workspace_refusal,
)
from codequorum.core.safe_text import safe_text
from codequorum.core.words import count
from codequorum.generate.endpoint import ProviderConfig
from codequorum.generate.proposed_inputs import InputAsker
from codequorum.ingest.extract import parse_problem
from codequorum.ingest.store import default_store_path
from codequorum.ingest.workspace import find_workspace
from codequorum.options.arguments import add_options
from codequorum.options.declarations import CHECK, FAIL_ON
from codequorum.pipeline.config import DEFAULTS, AnalysisConfig
from codequorum.pipeline.session import (
    FunctionAnalysis,
    Preparation,
    Session,
    SessionConfig,
    not_run,
)
from codequorum.render.check_out import CheckRun, FindingFormat, Located, finding_format, write
from codequorum.render.findings import (
    Finding,
    function_findings,
    not_run_reason,
    recommendation_lines,
)
from codequorum.render.terminal import color_enabled

#: Folders never entered when a directory is walked.
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
#: Where a finding is: (line, column, end line, end column), 1-based, columns in characters.
Span = tuple[int, int, int, int]

log = logging.getLogger(__name__)


def register(subparsers: Any) -> None:
    """Add ``check`` to the command line."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "check",
        help="lint source files: how far each function is from its stored versions",
        description="For every function of the given files that has versions in the version "
        "store, compare the current code with them and print one line per finding "
        "(path:line:col: severity code message). The exit status is 1 when a finding at or "
        "above --fail-on exists.",
    )
    add_options(parser, "check")
    parser.set_defaults(func=run, config_from="paths")


# ----------------------------------------------------------------------------- files


def _walk(folder: Path) -> Iterator[Path]:
    """Files with a known extension under ``folder``, sorted; hidden folders and
    ``node_modules``-like folders are not entered."""
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(files):
            path = Path(root) / name
            try:
                parsing.language_from_path(path)
            except UnknownLanguageError:
                continue
            yield path


def _targets(paths: Sequence[Path], language: str | None, run: CheckRun
             ) -> Iterator[tuple[Path, str]]:
    """(file, language) for every file to check, each once; notes for the rest."""
    seen: set[Path] = set()
    for given in paths:
        candidates: list[tuple[Path, str | None]]
        if given.is_dir():
            candidates = [(p, None) for p in _walk(given)]
        elif given.exists() or given.is_symlink():  # a broken link or a loop: said below
            candidates = [(given, language)]
        else:
            run.error(f"{given}: no such file or folder")
            run.missing_paths += 1
            continue
        top = real_path(given)
        for path, forced in candidates:
            resolved = real_path(path)
            if resolved in seen:
                continue
            seen.add(resolved)
            if path != given and not resolved.is_relative_to(top):
                run.notes.append(f"{path}: a symlink out of {given}, skipped")
                continue
            why = path != given and (workspace_refusal(path.relative_to(given))
                                     or workspace_refusal(resolved.relative_to(top)))
            if why:  # the workspace's one rule, for a file the user did not name
                run.notes.append(f"{path}: {why}, skipped")
                continue
            try:
                lang = parsing.language_from_path(path)
            except UnknownLanguageError:
                if forced is None:
                    run.notes.append(f"{path}: unknown extension, skipped "
                                     "(--language names the language)")
                    continue
                lang = forced
            yield path, lang


def _read(path: Path, run: CheckRun) -> str | None:
    """The file's text, or None with a note (binary, not UTF-8, unreadable, larger than a
    document may be, or not a regular file: a repository's FIFO or a symlink to
    ``/dev/zero`` is skipped, never read)."""
    try:
        data = read_regular(path, MAX_DOCUMENT_BYTES)
    except UnreadableFile as exc:
        run.notes.append(f"{safe_text(exc)}; skipped")
        return None
    except OSError as exc:
        run.error(f"{path}: cannot read: {exc.strerror or exc}")
        return None
    if b"\0" in data[:8192]:
        run.notes.append(f"{path}: binary file, skipped")
        return None
    try:
        return data.decode("utf-8-sig")  # a BOM is not part of the text
    except UnicodeDecodeError as exc:
        run.notes.append(f"{path}: not UTF-8 text (byte {exc.start}), skipped")
        return None


def _note_unparsed(path: Path, text: str, lang: str, run: CheckRun) -> None:
    """Say where a file first fails to parse: a function its syntax error breaks is found
    in no version's place, so it is not checked, and the summary alone would not say why."""
    problem = parse_problem(text, lang)
    if problem is not None:
        line, detail = problem
        why = f" ({safe_text(detail, 200)})" if detail else ""
        run.notes.append(f"{path}:{line}: does not parse{why}: a function it breaks is not "
                         "checked")


# ----------------------------------------------------------------------------- checking


def _report_summary(report: Any) -> dict[str, Any]:
    """The parts of a function's report a finding carries in JSON."""
    full = report.to_dict()
    keep = ("status", "message", "n", "n_total", "summary", "medoid", "clusters",
            "current_index", "notes")
    return {k: full[k] for k in keep}


def _column(line: str, byte_col: int) -> int:
    """A UTF-8 byte column on ``line`` as a 1-based column in characters."""
    prefix = line.encode("utf-8", errors="replace")[:byte_col]
    return len(prefix.decode("utf-8", errors="ignore")) + 1


def first_definitions(infos: Iterable[parsing.FunctionInfo]) -> list[parsing.FunctionInfo]:
    """The first definition of each qualified name: the store keeps versions by name, so a
    name defined twice is checked once."""
    seen: set[str] = set()
    out: list[parsing.FunctionInfo] = []
    for info in infos:
        qualified_name = str(info.qualified_name)
        if qualified_name not in seen:
            seen.add(qualified_name)
            out.append(info)
    return out


def name_span(lines: Sequence[str], start: parsing.Point, end: parsing.Point) -> Span:
    """Where a name starts and ends as (line, column, end line, end column), 1-based and
    counted in characters, from tree-sitter's 0-based rows and byte columns."""
    (row, start_byte), (end_row, end_byte) = start, end
    return row + 1, _column(lines[row], start_byte), end_row + 1, _column(lines[end_row], end_byte)


def _finding(path: Path, span: Span, found: Finding, function: str,
             stored: int, report: dict[str, Any]) -> Located:
    """One printed finding from one of :func:`function_findings`, at the function's name."""
    line, column, end_line, end_column = span
    return Located(
        path=path.as_posix(), line=line, column=column, end_line=end_line,
        end_column=end_column, severity=found.severity, code=found.code,
        message=found.message, function=function, figure=found.figure,
        versions=found.versions, stored=stored, report=report,
    )


@dataclass
class _Checker:
    """Checks files one function at a time through ``session``, counting in ``run``."""

    session: Session
    run: CheckRun
    min_versions: int
    dynamic: bool
    cancel: threading.Event
    asker: InputAsker | None

    def check_file(self, path: Path, lang: str) -> None:
        """Check every function of one file that has enough stored versions."""
        run = self.run
        run.files += 1
        text = _read(path, run)
        if text is None:
            run.files_skipped += 1
            return
        key = self.session.file_key(path)
        try:
            infos, broken = parsing.functions_and_errors(text, lang)
        except InputLimitError as exc:
            run.notes.append(f"{path}: {exc}, skipped")
            run.files_skipped += 1
            return
        if broken:
            _note_unparsed(path, text, lang, run)
        lines = text.split("\n")
        names = self.session.functions_with_versions_sync(key)
        checked_here = 0
        for info in first_definitions(infos):
            if not self._enough_versions(key, str(info.qualified_name), names):
                continue
            analysis = self._analyse(path, text, lang, info)
            if analysis is not None:
                checked_here += 1
                self._record(path, info, lines, analysis)
        if checked_here:
            run.files_checked += 1

    def _enough_versions(self, key: str, qualified_name: str, names: Collection[str]) -> bool:
        """Whether the function has ``--min-samples`` stored versions; the functions
        skipped are counted (without any, with too few)."""
        if qualified_name not in names:
            self.run.functions_without_versions += 1
            return False
        if len(self.session.versions_sync(key, qualified_name)) < self.min_versions:
            self.run.functions_too_few += 1
            return False
        return True

    def _analyse(self, path: Path, text: str, lang: str, info: parsing.FunctionInfo
                 ) -> FunctionAnalysis | None:
        """The function's analysis, prepared as every front end prepares it
        (:meth:`Session.prepare`), after a sandboxed run in its module with ``--dynamic``;
        None when there is none or it failed, which is counted and said: one function must
        not stop the others."""
        session, qualified_name = self.session, str(info.qualified_name)
        try:
            prepared = session.prepare(text, path, lang, info, module=self.dynamic)
            if prepared is None:
                return None
            analysis = prepared.analysis
            if self.dynamic and not analysis.refused:
                analysis = self._run(prepared)
        except KeyboardInterrupt:
            self.cancel.set()
            raise
        except Exception as exc:
            self.run.failures += 1
            log.debug("analysis of %s failed", qualified_name, exc_info=True)
            why = str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"
            self.run.error(f"{path}: `{qualified_name}` could not be analysed: {why}")
            return None
        return analysis

    def _run(self, prepared: Preparation) -> FunctionAnalysis:
        """The analysis after a sandboxed run; where no sandbox runs the versions here, the
        analysis of their shape (not a run remembered from before: ``check`` runs them
        again) with the ``not-run`` finding saying so."""
        try:
            analysis = self.session.run_prepared(prepared, lambda _t, _p: None, self.cancel,
                                                 self.asker)
        except SandboxUnavailableError as exc:
            return not_run(self.session.shape_only(prepared), f"sandbox unavailable: {exc}")
        self._note_sandbox(analysis)
        return analysis

    def _note_sandbox(self, analysis: FunctionAnalysis | None) -> None:
        """Say once which sandbox ran the versions when it was not the strict one."""
        from codequorum.behaviour.sandbox.isolation import sandbox_note

        note = sandbox_note(getattr(getattr(analysis, "dynamic", None), "notes", None) or [])
        if note is not None and note not in self.run.notes:
            self.run.notes.append(note)

    def _record(self, path: Path, info: parsing.FunctionInfo, lines: Sequence[str],
                analysis: FunctionAnalysis) -> None:
        """Add a checked function to the run: its row and its findings."""
        run, qualified_name = self.run, str(info.qualified_name)
        run.functions_checked += 1
        summary = _report_summary(analysis.report)
        headline = analysis.report.verdict
        log.info("%s: `%s`: %s (%s)", path, qualified_name, _headline_words(analysis),
                 count(analysis.n_stored, "stored version"))
        span = name_span(lines, info.name_start_point, info.name_end_point)
        run.functions.append({
            "path": path.as_posix(),
            "function": qualified_name,
            "line": span[0],
            "versions": analysis.n_stored,
            "verdict": headline.code if headline is not None else None,
            "verdicts": [v.code for v in analysis.report.verdicts],
            "stability": summary["summary"].get("jsd_struct", {}).get("ordered"),
            "recommended": analysis.report.recommended,
            "risk": analysis.report.risk,
            "not_run": not_run_reason(analysis.report),
            "interpreter": safe_text(getattr(analysis.dynamic, "python", "") or "", 40) or None,
            # after a run, the editor's words: the version to keep, how far to trust it
            "advice": recommendation_lines(analysis) if analysis.dynamic is not None else [],
        })
        run.findings.extend(
            _finding(path, span, found, qualified_name, analysis.n_stored, summary)
            for found in function_findings(analysis, qualified_name)  # one of many files
        )
        not_run = not_run_reason(analysis.report)
        if not_run is not None:  # never a silent "stable": said on stderr and in the JSON
            run.notes.append(f"{path}: `{safe_text(qualified_name, 200)}`: behaviour not run: "
                             f"{not_run}")


def _headline_words(analysis: FunctionAnalysis) -> str:
    """What ``-v`` says of a function: its headline's code (``stable``), or its words when
    the behaviour was not measured (``shape stable; behaviour not run: no inputs``); a
    ``stable`` no run backs is the shape's (``shape stable; not run yet``), as the editor's
    lens says it."""
    from codequorum.behaviour.runtimes import runtime_for

    headline = analysis.report.verdict
    if headline is None:
        return analysis.report.status
    if headline.code == "not-run":
        return safe_text(headline.message)
    if headline.code == "stable" and analysis.dynamic is None:
        runs = runtime_for(analysis.language) is not None
        return "shape stable; " + ("not run yet (--dynamic runs the versions)" if runs
                                   else "behaviour not run: the language does not run")
    return headline.code


def _open_session(request: CheckRequest, store_path: Path, workspace: Path, run: CheckRun,
                  problems: list[str]) -> Session:
    """A session on the store, rooted at the workspace; what it reports goes to
    ``problems`` (errors) or the run's notes."""

    def notify(level: str, message: str) -> None:
        text = message.removeprefix("codequorum: ")
        (problems if level == "error" else run.notes).append(text)

    session = Session(notify, SessionConfig(store=str(store_path), analysis=request.analysis))
    session.reconfigure(session.config, root=str(workspace))
    return session


def check_files(request: CheckRequest, store_path: Path, workspace: Path) -> CheckRun:
    """Check every target file against the store at ``store_path``."""
    run = CheckRun(store=str(store_path), min_versions=request.min_versions)
    problems: list[str] = []
    session = _open_session(request, store_path, workspace, run, problems)
    cancel = threading.Event()
    asker = input_asker(request.propose)
    try:
        if session.store() is None:
            raise UserError(problems[0] if problems else f"cannot open {store_path}")
        checker = _Checker(session, run, request.min_versions, request.dynamic, cancel, asker)
        for path, lang in _targets(request.paths, request.language, run):
            checker.check_file(path, lang)
    finally:
        session.close()
    note = asker_note(asker, "checked")
    if note is not None:
        run.notes.append(note)
    return run


def _discover(paths: Sequence[Path]) -> Path:
    """The workspace of the first path that exists (the current folder's when none does)."""
    for path in paths:
        if path.exists():
            return find_workspace(path)
    return find_workspace(Path.cwd())


@dataclass(frozen=True)
class CheckRequest:
    """``codequorum check`` as asked, read from its arguments at its door."""

    paths: tuple[Path, ...]
    format: FindingFormat
    fail_on: str
    language: str | None = None          # normalised
    workspace: Path | None = None        # ``--workspace`` as given
    store: Path | None = None
    min_versions: int = 2
    analysis: AnalysisConfig = DEFAULTS
    dynamic: bool = False
    propose: ProviderConfig | None = None  # ``--dynamic --propose-inputs``: the endpoint
    quiet: bool = False
    color: str = "auto"


def check_request(args: argparse.Namespace) -> CheckRequest:
    """The request of ``codequorum check``, its format, ``--fail-on`` and language checked
    (:class:`UserError`)."""
    fmt = finding_format(args.output_format)
    if args.fail_on not in FAIL_ON:
        raise UnknownFormatError(
            f"unknown --fail-on {args.fail_on!r} (choose {', '.join(FAIL_ON)})")
    language = parsing.normalize_language(args.language) if args.language else None
    return CheckRequest(
        paths=tuple(args.paths), format=fmt, fail_on=args.fail_on, language=language,
        workspace=args.workspace, store=args.store, min_versions=args.min_versions,
        analysis=from_request(args, CHECK), dynamic=args.dynamic,
        propose=propose_config(args), quiet=args.quiet, color=args.color)


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``codequorum check``: 0 clean, 1 a finding at or above ``--fail-on``, 2 bad usage
    (or a path that does not exist)."""
    return run_check(check_request(args), out)


def run_check(request: CheckRequest, out: TextIO | None = None) -> int:
    """Check the request's files and print the findings; the exit status of :func:`run`."""
    stream = out or sys.stdout
    fmt = request.format
    workspace = real_path(request.workspace or _discover(request.paths))
    if request.workspace is not None and not workspace.is_dir():
        raise UserError(f"--workspace {request.workspace}: not a folder")
    store_path = guard(request.store or default_store_path(workspace), [workspace])
    if request.dynamic:
        from codequorum.pipeline.score import dynamic_available

        if not dynamic_available():
            raise UserError("dynamic analysis is not available in this installation; "
                            "run without --dynamic")
    if store_path.is_dir():
        raise UserError(f"--store {store_path}: is a folder, expected a file")
    if not os.path.lexists(store_path):
        if not request.quiet:
            print(f"codequorum: no version store at {safe_text(store_path)}; run `codequorum "
                  "sample` or add versions from your editor", file=sys.stderr)
        empty = CheckRun(store=str(store_path), store_missing=True)
        if fmt.document:
            write(empty, fmt, stream)
        return 0
    result = check_files(request, store_path, workspace)
    for note in result.notes:
        if not request.quiet or note in result.errors:
            print(f"codequorum: {safe_text(note)}", file=sys.stderr)
    write(result, fmt, stream, color=color_enabled(request.color, stream), quiet=request.quiet)
    return result.exit_code(request.fail_on)
