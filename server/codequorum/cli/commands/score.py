"""``codequorum score``: score sample sets from files and print a table, JSON or CSV.

The arguments become a :class:`~codequorum.cli.scoring.ScoreRequest` at the door; the sets are
read and scored by :mod:`codequorum.pipeline.score` (in this process, in ``--jobs``
workers, or with ``--scheduler`` on a cluster, :mod:`codequorum.cli.commands.score_cluster`)
and written by the output format's sink (:mod:`codequorum.render.sinks`). Ctrl-C stops the
workers, writes the sets already scored and exits with status 130.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codequorum.cli.analysis import from_request
from codequorum.cli.endpoint import (
    asker_note,
    input_asker,
    propose_config,
)
from codequorum.cli.scoring import (
    EXIT_INTERRUPTED,
    ScoreRequest,
    level_notes,
    progress_bar,
    report_errors,
)
from codequorum.core import os_features
from codequorum.core.errors import UnknownFormatError, UserError
from codequorum.core.interrupts import deferred_interrupt
from codequorum.core.model import VersionSet
from codequorum.core.parsing import normalize_language
from codequorum.core.safe_text import safe_text
from codequorum.core.words import count
from codequorum.ingest.version_files import INPUT_FORMATS, ReadOptions, load_problems
from codequorum.ingest.workspace import find_workspace
from codequorum.options.arguments import add_options
from codequorum.options.declarations import SCORE
from codequorum.pipeline.risk_level import RunLevel
from codequorum.pipeline.score import (
    ScoreRun,
    dynamic_available,
    read_inputs,
    require_sandbox,
    run_scoring,
)
from codequorum.render.html_report import load_compare
from codequorum.render.level_sink import open_sink
from codequorum.render.outfile import check_output
from codequorum.render.sinks import (
    FORMAT_NAMES,
    OUTPUT_FORMATS,
    OutputFormat,
    RunEnd,
    SinkRequest,
    format_for,
    names_of,
    refuse_page_on_terminal,
)
from codequorum.render.terminal import color_enabled

log = logging.getLogger(__name__)

# ----------------------------------------------------------------------------- arguments


def resolve_interpreter(name: str) -> str:
    """The executable behind ``--interpreter NAME`` (a version manager's shim resolved),
    or a :class:`UserError` when it is not a Python that starts."""
    found = os_features.find_program(name)
    if found is None:
        raise UserError(f"--interpreter {name}: no such executable")
    try:
        proc = subprocess.run([found, "-c", "import sys; print(sys.executable)"],
                              capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise UserError(f"--interpreter {name}: does not run as Python ({exc})") from None
    executable = proc.stdout.strip()
    if not executable:
        raise UserError(f"--interpreter {name}: does not run as Python")
    return executable



def register(subparsers: Any) -> None:
    """Add ``score`` to the command line."""
    parser = subparsers.add_parser(
        "score",
        help=f"score sample sets from files ({', '.join(FORMAT_NAMES)})",
        description="Score how much the versions in each sample set agree: structural "
        "cross-entropy (SCE) and Jensen-Shannon similarity (JSD) of AST subtrees, tree edit "
        "similarity (TSED), groups of versions with one shape, and a verdict per set.",
    )
    add_options(parser, "score")
    parser.set_defaults(func=run)


def _compare_formats() -> list[OutputFormat]:
    """The formats ``--compare`` shows another run in."""
    return [f for f in OUTPUT_FORMATS if f.needs_matrices]


def score_request(args: argparse.Namespace) -> ScoreRequest:
    """The request of ``codequorum score``, its arguments checked (:class:`UserError`)."""
    fmt = format_for(args.output_format, args.output)
    refuse_page_on_terminal(fmt, args.output)
    if args.input_format not in INPUT_FORMATS:
        raise UnknownFormatError(f"unknown input format {args.input_format!r} "
                                 f"(choose {', '.join(INPUT_FORMATS)})")
    if args.language is not None:
        normalize_language(args.language)
    if args.dynamic and not dynamic_available():
        raise UserError("dynamic analysis is not available in this installation "
                        "(codequorum.behaviour.dynamic_analysis is missing); run without --dynamic")
    if args.inputs.count("-") > 1:
        raise UserError("standard input (-) can be read only once")
    check_output(args.output)
    compare_path = getattr(args, "compare", None)
    if compare_path and not fmt.needs_matrices:
        raise UserError(f"--compare works with --format {names_of(_compare_formats())}")
    compare = ((os.path.basename(compare_path), load_compare(compare_path))
               if compare_path else None)
    analysis = from_request(args, SCORE, needs_matrices=fmt.needs_matrices,
                            interpreter=resolve_interpreter)
    problems = load_problems(args.problems) if args.problems else None
    read = ReadOptions(input_format=args.input_format, language=args.language,
                       completions=args.completions, problems=problems,
                       max_versions=args.versions, limit=args.limit)
    scheduler = getattr(args, "scheduler", None)
    return ScoreRequest(
        inputs=tuple(args.inputs), read=read, analysis=analysis, format=fmt,
        output=SinkRequest(path=args.output, color=args.color, matrices=args.matrices,
                           reasons=args.reasons, compare=compare),
        jobs=args.jobs, dynamic=args.dynamic,
        interpreter=getattr(args, "interpreter", None), propose=propose_config(args),
        scheduler=scheduler, resume=bool(getattr(args, "resume", False)),
        quiet=args.quiet, color=args.color)


def run(args: argparse.Namespace) -> int:
    """``codequorum score``."""
    request = score_request(args)
    if request.propose is not None and request.scheduler:
        raise UserError("--propose-inputs works without --scheduler (the inputs are asked "
                        "from this machine)")
    if request.scheduler:
        from codequorum.cli.commands.score_cluster import run_on_cluster

        return run_on_cluster(request, request.scheduler)
    if request.resume:
        raise UserError("--resume works with --scheduler (use --scheduler local:N on this "
                        "machine)")
    return score_here(request)


def score_here(request: ScoreRequest) -> int:
    """Score the request's sets in this process (or ``--jobs`` workers), then write them."""
    asker = input_asker(request.propose)
    version_sets, sources, read_errors = read_inputs(request.inputs, request.read)
    show_progress = (not request.quiet and sys.stderr.isatty()
                     and (len(version_sets) > 1 or request.dynamic))
    log.info("%s read from %s", count(len(version_sets), "set"),
             count(len(request.inputs), "input"))
    require_sandbox(request.dynamic, request.interpreter, request.analysis.sandbox)
    scored = run_scoring(version_sets, sources, request.analysis, jobs=request.jobs,
                         dynamic=request.dynamic,
                         progress=(progress_bar(color_enabled(request.color, sys.stderr))
                                   if show_progress else None),
                         input_proposer=asker, workspace=find_workspace(Path.cwd()))
    scored.errors = read_errors + scored.errors
    level = request.analysis.run_level(request.dynamic)
    with deferred_interrupt() as hits:
        write_run(scored, request.format, request.output, version_sets, level)
    report_errors(scored)
    level_notes(level, request.format, request.quiet)
    note = asker_note(asker)
    if note is not None and not request.quiet:
        print(f"codequorum: {safe_text(note)}", file=sys.stderr)
    if hits and not scored.interrupted:
        print("codequorum: interrupted while writing; the output was written in full",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    return scored.exit_code


def write_run(run: ScoreRun, fmt: OutputFormat, request: SinkRequest,
              version_sets: Sequence[VersionSet], level: RunLevel | None = None) -> None:
    """Write a finished run in ``fmt`` (``run.positions`` index ``version_sets``, whose
    versions the formats that show them take); with ``level``, every set's risk level is
    set from the run's sets (:mod:`codequorum.render.level_sink`)."""
    with open_sink(fmt, request, level) as sink:
        for report, k in zip(run.reports, run.positions, strict=True):
            sink.add(report, version_sets[k].codes)
        sink.finish(RunEnd(run.errors, interrupted=run.interrupted, total=run.total))
