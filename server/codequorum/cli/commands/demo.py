"""``codequorum demo``: score real LLM versions bundled with the package and explain the table.

The data is 20 HumanEval tasks × 10 CodeGen-16B versions (see ``codequorum/data/NOTICE.md``),
chosen to range from versions that all look alike to versions that share almost nothing.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from importlib import resources
from typing import Any

from rich.console import Console
from rich.text import Text

from codequorum.cli.analysis import from_request
from codequorum.cli.commands.score import resolve_interpreter, write_run
from codequorum.cli.scoring import (
    level_notes,
    progress_bar,
    report_errors,
)
from codequorum.core.errors import UserError
from codequorum.core.interrupts import deferred_interrupt
from codequorum.core.report import StabilityReport
from codequorum.core.safe_text import safe_text
from codequorum.ingest.version_files import ReadOptions
from codequorum.options.arguments import add_options
from codequorum.options.declarations import DEMO
from codequorum.pipeline.config import AnalysisConfig
from codequorum.pipeline.score import (
    ScoreRun,
    dynamic_available,
    read_inputs,
    require_sandbox,
    run_scoring,
)
from codequorum.render.outfile import check_output
from codequorum.render.sinks import (
    OutputFormat,
    SinkRequest,
    format_for,
    refuse_page_on_terminal,
)
from codequorum.render.table import task_text
from codequorum.render.terminal import color_enabled, make_console

DATA_FILE = "humaneval_demo.jsonl.gz"
#: Above the table, the format laid out for a person at a terminal.
TITLE = "HumanEval × CodeGen-16B (T=0.8): how much do versions of one function agree?"

EXPLANATION = """\
[bold]How to read it[/bold]
Each row is one HumanEval task: [bold]n[/bold] versions of its function written by CodeGen-16B
at temperature 0.8. Each figure is the mean over all pairs of versions, from
0 (nothing in common) to 1 (identical).
  [bold]SCE[/bold]    structural cross-entropy of the syntax-tree subtrees (strict)
  [bold]JSD[/bold]    Jensen-Shannon similarity of the same subtrees (forgiving)
         [italic]struct[/italic]: shapes only; [italic]value[/italic]: names and literals too
  [bold]TSED[/bold]   tree edit similarity: how few node edits turn one into another
  [bold]Shape[/bold]  versions in the largest group that share one shape
[green]stable[/green]: the versions agree in shape at least as well as three HumanEval functions
in four do.
[yellow]unstable-structure[/yellow]: among the least stable quarter of HumanEval functions:
ask again and you will likely get a differently built function; worth a second look before
you accept the first one."""

DYNAMIC_EXPLANATION = """\
[bold]Running them[/bold] (each version in a sandboxed process, against HumanEval's tests)
  [bold]Pass[/bold]   mean share of the tests the versions pass
  [bold]OER[/bold]    share of inputs on which all versions give the same output
  [bold]BEF[/bold]    bytecode divergence when read / when run: > 1000 alike in behaviour but
         built differently, < 0.1 built alike but behaving differently"""

DYNAMIC_STEP = """\
Run the versions against HumanEval's tests too: [bold]codequorum demo --dynamic[/bold]"""

NEXT_STEPS = """\
[bold]With your own code[/bold]
  Ask a model for 5 versions of one of your functions (here a local Ollama):
    [bold]codequorum sample app.py -f NAME --base-url http://localhost:11434/v1 \\
      --model qwen2.5-coder:7b --api-key-env ""[/bold]
  Lint against the stored versions (CI, pre-commit): [bold]codequorum check src/[/bold]
  In your editor: the VS Code extension, or [bold]codequorum lsp[/bold] in any LSP
    client (docs/editors.md)
  Score sample sets of your own: [bold]codequorum score FILE.jsonl[/bold] (docs/cli.md)
Data: codequorum/data/NOTICE.md"""


def _bundled() -> Any:
    """The bundled demo data inside the installed package."""
    return resources.files("codequorum").joinpath("data", DATA_FILE)


def register(subparsers: Any) -> None:
    """Add ``demo`` to the command line."""
    parser = subparsers.add_parser(
        "demo",
        help="score real LLM samples bundled with codequorum and explain the figures",
        description="Score 20 HumanEval tasks × 10 CodeGen-16B samples (bundled) and explain "
        "how to read the table.",
    )
    add_options(parser, "demo")
    parser.set_defaults(func=run)


def _highlights(reports: list[StabilityReport], console: Console) -> None:
    """The most and the least stable task, with the verdicts' reasons."""
    scored = [r for r in reports if r.status == "ok" and r.pair("jsd_struct") is not None]
    if len(scored) < 2:
        return
    ranked = sorted(scored, key=lambda r: r.pair("jsd_struct") or 0.0)
    console.print()
    console.print("[bold]For example[/bold]")
    for label, r in (("most alike", ranked[-1]), ("least alike", ranked[0])):
        verdict = r.verdict
        medoid = f"; version {r.medoid + 1} is the most typical" if r.medoid is not None else ""
        line = Text("  ")
        line.append_text(task_text(r.task_id))
        line.append(f" ({label}): {safe_text(verdict.message if verdict else '')}{medoid}")
        console.print(line)


@dataclass(frozen=True)
class DemoRequest:
    """``codequorum demo`` as asked, read from its arguments at its door."""

    format: OutputFormat
    output: SinkRequest
    analysis: AnalysisConfig
    versions: int | None = None      # the most versions read per set
    jobs: int = 1
    dynamic: bool = False
    interpreter: str | None = None  # ``--interpreter`` as given
    quiet: bool = False
    color: str = "auto"


def demo_request(args: argparse.Namespace) -> DemoRequest:
    """The request of ``codequorum demo``, its arguments checked (:class:`UserError`)."""
    fmt = format_for(args.output_format, args.output)
    refuse_page_on_terminal(fmt, args.output)
    check_output(args.output)
    if args.dynamic and not dynamic_available():
        raise UserError("dynamic analysis is not available in this installation; run the "
                        "demo without --dynamic")
    return DemoRequest(
        format=fmt,
        output=SinkRequest(path=args.output, color=args.color, matrices=args.matrices,
                           reasons=args.reasons, title=TITLE if fmt.terminal else None,
                           explain_shape=False),  # EXPLANATION says what stable means
        analysis=from_request(args, DEMO, needs_matrices=fmt.needs_matrices,
                              interpreter=resolve_interpreter),
        versions=args.versions, jobs=args.jobs, dynamic=args.dynamic,
        interpreter=getattr(args, "interpreter", None), quiet=args.quiet, color=args.color)


def run(args: argparse.Namespace) -> int:
    """``codequorum demo``."""
    return run_demo(demo_request(args))


def run_demo(request: DemoRequest) -> int:
    """:func:`run` for a request read at the door."""
    fmt = request.format
    with resources.as_file(_bundled()) as path:
        if not path.is_file():
            raise UserError(f"the bundled demo data is missing ({DATA_FILE}); reinstall "
                            "codequorum")
        sets, sources, errors = read_inputs(
            [str(path)], ReadOptions(input_format="jsonl", max_versions=request.versions))
    show_progress = not request.quiet and sys.stderr.isatty()
    require_sandbox(request.dynamic, request.interpreter, request.analysis.sandbox)
    scored: ScoreRun = run_scoring(
        sets, sources, request.analysis, jobs=request.jobs, dynamic=request.dynamic,
        progress=(progress_bar(color_enabled(request.color, sys.stderr))
                  if show_progress else None))
    scored.errors = errors + scored.errors
    level = request.analysis.run_level(request.dynamic)
    with deferred_interrupt():
        write_run(scored, fmt, request.output, sets, level)
    if fmt.terminal and request.output.path in (None, "-") and not request.quiet:
        console = make_console(sys.stdout, color_enabled(request.color, sys.stdout))
        _highlights(scored.reports, console)
        console.print()
        console.print(EXPLANATION)
        if request.dynamic:
            console.print(DYNAMIC_EXPLANATION)
        console.print()
        console.print(NEXT_STEPS if request.dynamic else f"{DYNAMIC_STEP}\n\n{NEXT_STEPS}")
    report_errors(scored)
    level_notes(level, fmt, request.quiet)
    return scored.exit_code
