"""Every option of every command, declared once as data.

An :class:`Option` says how the option is spelled, what it takes, its default and help, and
what it can do (its :class:`~codequorum.options.policy.Reach`, and the harmless values a
project may still give a user-only option). From :data:`OPTIONS`:

- each command's argparse parser is built (:func:`codequorum.options.arguments.add_options`);
- the configuration files' keys, their types and who may set them are read
  (:mod:`codequorum.options.config_file`), without building a parser.

The order of :data:`OPTIONS` is the order of each command's ``--help``; ``group`` is a key
whose title a command may give (:data:`GROUPS`; none: among the command's own options).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from codequorum.core.parsing import normalize_language
from codequorum.core.report import SEVERITIES
from codequorum.generate.endpoint import (
    DEFAULT_API_KEY_ENV,
    DEFAULT_BASE_URL,
    DEFAULT_MODEL,
    ProviderChoice,
)
from codequorum.generate.prompting import DEFAULT_CONTEXT_LINES
from codequorum.ingest.version_files import INPUT_FORMATS
from codequorum.metrics.registry import (
    DEFAULT_METRICS,
    EDITOR_METRICS,
    METRIC_CHOICES,
    TEXTUAL,
    UnknownMetric,
    metric_choice,
)
from codequorum.options.argtypes import at_least, auto_or, log_base, positive, seconds
from codequorum.options.policy import ProjectValues, Reach, within_cores
from codequorum.pipeline.config import DEFAULTS, SANDBOX_LEVELS
from codequorum.pipeline.risk_level import RISK_LEVELS
from codequorum.render.check_out import FORMAT_NAMES as FINDING_FORMAT_NAMES
from codequorum.render.check_out import formats_help as finding_formats_help
from codequorum.render.sinks import FORMAT_NAMES, formats_help
from codequorum.render.terminal import COLOR_MODES

#: How an option takes its value on the command line (argparse's actions): ``value`` one
#: value, ``flag`` on when given, ``off`` off when given (``--no-tsed``), ``either``
#: ``--x`` / ``--no-x``, ``count`` counted (``-vv``), ``append`` given more than once,
#: ``positional`` an argument without a flag.
Kind = Literal["value", "flag", "off", "either", "count", "append", "positional"]

#: The values a file may give an option its command checks itself: a list, or a function
#: that raises ``ValueError`` (or a :class:`~codequorum.core.errors.UserError`).
Values = tuple[str, ...] | Callable[[str], object]

#: Every command. A command's options are those that name it in ``commands``.
CHECK, DEMO, DOCTOR, EXPORT, LSP, MCP, SAMPLE, SCORE = (
    "check", "demo", "doctor", "export", "lsp", "mcp", "sample", "score")
COMMANDS: tuple[str, ...] = (CHECK, DEMO, DOCTOR, EXPORT, LSP, MCP, SAMPLE, SCORE)
#: In ``commands``: an option every command has (``-q``, ``--config``, ...).
EVERY = "*"

#: ``check --fail-on not-run``: a warning, an error, or a function whose versions did not run.
NOT_RUN_FAILS = "not-run"
#: ``check --fail-on``: the least severity that fails the run, ``not-run``, or never.
FAIL_ON: tuple[str, ...] = (*(s for s in SEVERITIES if s != "hint"), NOT_RUN_FAILS, "never")
#: Seconds ``--propose-inputs`` waits for the endpoint's answer by default.
DEFAULT_PROPOSE_TIMEOUT = 30.0
#: Default request timeout (seconds) of the agents' ``sample_versions``.
DEFAULT_REQUEST_TIMEOUT = 60.0


@dataclass(frozen=True)
class Option:
    """One option of one or more commands (the same name may be declared again, with
    other help or another default, for other commands)."""

    name: str                      # the long flag without ``--``; the configuration key
    help: str
    reach: Reach
    commands: frozenset[str]
    kind: Kind = "value"
    default: Any = None
    type: Callable[[str], Any] | None = None
    metavar: str | None = None
    choices: Sequence[str] | None = None
    #: Values a configuration file may give (the command checks the command line's itself).
    values: Values | None = None
    dest: str = ""                 # the attribute of the parsed arguments (default: name)
    flags: tuple[str, ...] = ()    # every spelling, when not just ``--name``
    group: str = ""                # the help's group key (see GROUP_TITLES)
    mutex: str = ""                # options of one mutex key exclude each other
    required: bool = False
    nargs: str | None = None       # of a positional argument
    #: An environment variable whose value, when set, is the default.
    env_default: str = ""
    #: The values a project may still give a user-only option.
    project_values: ProjectValues | None = None

    @property
    def attribute(self) -> str:
        """Where the parsed value goes."""
        return self.dest or self.name.replace("-", "_")

    @property
    def option_strings(self) -> tuple[str, ...]:
        """The flags of the option (none for a positional argument)."""
        if self.kind == "positional":
            return ()
        flags = self.flags or (f"--{self.name}",)
        return (*flags, f"--no-{self.name}") if self.kind == "either" else flags

    @property
    def keys(self) -> tuple[str, ...]:
        """The configuration keys that set it: its long flags without ``--`` (none for a
        positional argument, a required option, or one that picks the files themselves)."""
        if self.required or self.reach is Reach.CONFIGURATION:
            return ()
        return tuple(f[2:] for f in self.option_strings if f.startswith("--"))

    def initial(self) -> Any:
        """The default, from the environment when ``env_default`` names a set variable."""
        return os.environ.get(self.env_default, self.default) if self.env_default else \
            self.default


def _is_false(value: object) -> bool:
    return value is False


def _is_true(value: object) -> bool:
    return value is True


def _humaneval(value: object) -> bool:
    return value == "humaneval"


def _strict(value: object) -> bool:
    return value in ("strict", "auto")


def _local_workers(value: object) -> bool:
    """``local:N``: worker processes on this machine, which a project may ask for (as
    many as the machine has cores)."""
    if not (isinstance(value, str) and value.startswith("local:")):
        return False
    number = value.removeprefix("local:")
    return number.isdigit() and within_cores(int(number))


#: The most versions, and retries of one request, a project's file may ask for with the
#: user's key: the bounds of the editor's ``provider.versions`` and ``provider.maxRetries``.
PROJECT_MAX_VERSIONS = 50
PROJECT_MAX_RETRIES = 10


def _at_most(bound: int) -> ProjectValues:
    """A project may give a whole number of at most ``bound``."""
    def check(value: object) -> bool:
        return isinstance(value, int) and value <= bound
    return check


def metric_list(text: str) -> tuple[str, ...]:
    """``--metrics``: a comma-separated list of
    :data:`~codequorum.metrics.registry.METRIC_CHOICES` ("" for none of them), as one
    choice in the registry's order; the metrics every run computes are always there."""
    try:
        return metric_choice(name.strip() for name in text.split(",") if name.strip())
    except UnknownMetric as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def chosen_metrics(listed: Sequence[str] | None, *, default: Sequence[str] = DEFAULT_METRICS,
                   tsed: bool = True, tsed_08: bool = False,
                   textual: bool = False) -> tuple[str, ...]:
    """The optional metrics a run computes: ``listed`` (``--metrics``; None: the command's
    ``default``), then the older spellings on top of it: ``--no-tsed`` takes TSED out,
    ``--tsed-08`` and ``--textual`` add theirs."""
    chosen = set(listed if listed is not None else default)
    if not tsed:
        chosen.discard("tsed")
    if tsed_08:
        chosen.add("tsed_08")
    if textual:
        chosen.add(TEXTUAL)
    return metric_choice(chosen)


def _on(*commands: str) -> frozenset[str]:
    return frozenset(commands)


A = Reach.ANALYSIS
#: The endpoint's defaults, one place for ``sample``, ``mcp`` and the editor's provider settings.
_PROVIDER = ProviderChoice()
_ALL = frozenset({EVERY})
_STORE_HELP = "store file (default: <workspace>/.codequorum/samples.sqlite3)"
_DYNAMIC_HELP = "also run the versions in the sandbox (opcode traces, outputs)"

#: Each command's help groups in order: (key, title). An option whose group key its command
#: does not list is among the command's own options.
_ENDPOINT_FOR_INPUTS = ("endpoint", "inputs from the model (with --dynamic)")
_SCORE_OUTPUT = (("analysis", "analysis"), ("output", "output"))
GROUPS: dict[str, tuple[tuple[str, str], ...]] = {
    CHECK: (_ENDPOINT_FOR_INPUTS,),
    DEMO: _SCORE_OUTPUT,
    MCP: (("analysis", "analysis"), ("endpoint", "endpoint of sample_versions")),
    SAMPLE: (("endpoint", "endpoint"),),
    SCORE: (("input", "input"), _ENDPOINT_FOR_INPUTS, ("cluster", "cluster"), *_SCORE_OUTPUT),
    EVERY: (("output control", "output control"), ("configuration", "configuration")),
}

OPTIONS: tuple[Option, ...] = (
    # ------------------------------------------------------------------ arguments
    Option("paths", "source files, or folders to walk for files with a known extension",
           A, _on(CHECK), kind="positional", nargs="+", type=Path, metavar="PATH"),
    Option("paths", "source files or folders whose functions to export (default: every "
           "file in the store)", A, _on(EXPORT), kind="positional", nargs="*", type=Path,
           metavar="PATH"),
    Option("root", "the workspace: files are read and versions kept only inside it "
           "(default: the current folder)", Reach.WORKSPACE, _on(MCP), kind="positional",
           nargs="?", type=Path, metavar="ROOT"),
    Option("file", "the source file that holds the function", A, _on(SAMPLE),
           kind="positional", type=Path),
    Option("inputs", "sample set files (.jsonl, HumanEval samples, bigcode generations.json, "
           "MultiPL-E problem files, optionally .gz), or folders of them; - reads standard "
           "input", A, _on(SCORE), kind="positional",
           nargs="+", metavar="INPUT"),
    # ------------------------------------------------------------------ which function
    Option("function", "qualified function name, e.g. parse_row or Stack.push", A,
           _on(SAMPLE), flags=("--function", "-f"), required=True, metavar="QUALNAME"),
    Option("language", "language of FILE (default: from its extension)", A, _on(SAMPLE),
           values=normalize_language),
    Option("function", "only this function (qualified name, e.g. Stack.push); may be given "
           "more than once", A, _on(EXPORT), kind="append", flags=("--function", "-f"),
           dest="functions", metavar="QUALNAME"),
    Option("no-current", "leave the current code out (default: it joins the versions, as "
           "check and the editor compare it)", Reach.VISIBILITY, _on(EXPORT), kind="off",
           dest="current", default=True, project_values=_is_true),
    Option("from", "import versions from a sample-set file, a JSON list, a directory (a "
           "version a file) or one file of code or a chat answer instead", Reach.PROJECT_FILE,
           _on(SAMPLE), dest="source", type=Path, metavar="PATH"),
    Option("task", "with --from: the task_id of the set to import (default: the set whose "
           "entry_point is the function, else the only set)", A, _on(SAMPLE)),
    # ------------------------------------------------------------------ the store
    Option("workspace", "workspace folder (default: the nearest folder above the first path "
           "holding .codequorum or .git, as `codequorum sample` finds it)", Reach.WORKSPACE,
           _on(CHECK), type=Path),
    Option("workspace", "workspace folder (default: the nearest folder above the first PATH, "
           "else the current folder, holding .codequorum or .git)", Reach.WORKSPACE,
           _on(EXPORT), type=Path),
    Option("workspace", "workspace folder (default: the nearest folder above FILE holding "
           ".codequorum or .git)", Reach.WORKSPACE, _on(SAMPLE), type=Path),
    Option("store", _STORE_HELP, Reach.STORE, _on(CHECK, EXPORT, SAMPLE), type=Path),
    Option("output", "write the JSONL to FILE instead of standard output", Reach.OUTPUT,
           _on(EXPORT), flags=("-o", "--output"), metavar="FILE"),
    Option("print-prompt", "print the prompt messages and stop", A, _on(SAMPLE),
           kind="flag", default=False),
    # ------------------------------------------------------------------ score's input
    Option("input-format", "auto (default), jsonl, humaneval or bigcode", A, _on(SCORE),
           group="input", default="auto", metavar="FORMAT", values=INPUT_FORMATS),
    Option("language", "language of sets that do not name one (default python)", A,
           _on(SCORE), group="input", values=normalize_language),
    Option("completions", "join prompt + sample (default: when the set says its samples "
           "are completions)", A, _on(SCORE), group="input", kind="either"),
    Option("problems", "prompts and tests for HumanEval samples / bigcode generations: "
           "'humaneval' or a problems .jsonl file", Reach.PROJECT_FILE, _on(SCORE),
           group="input", metavar="SOURCE", project_values=_humaneval),
    Option("limit", "score the first N sets", A, _on(SCORE), group="input", type=positive,
           metavar="N"),
    # ------------------------------------------------------------------ check
    Option("language", "language of files named on the command line whose extension does "
           "not tell (default: from the extension)", A, _on(CHECK), values=normalize_language),
    Option("format", finding_formats_help(), A, _on(CHECK), dest="output_format",
           default="text", metavar="FORMAT", values=FINDING_FORMAT_NAMES),
    Option("fail-on", "exit with status 1 when a finding at or above this severity exists: "
           "error, warning (default), information, not-run (a warning, an error, or a function "
           "whose versions did not run on any input with --dynamic) or never", A, _on(CHECK),
           default="warning", metavar="SEVERITY", values=FAIL_ON),
    Option("min-versions", "check a function only when at least K versions are stored "
           "(default 2)", A, _on(CHECK),
           flags=("--min-versions", "--min-samples"), type=positive, default=2, metavar="K"),
    Option("jsd-log-base", f"log base of the JSD similarity (default {DEFAULTS.jsd_log_base:g}; "
           "e reproduces the published reference code)", A, _on(DEMO, SCORE),
           group="analysis", type=log_base, default=DEFAULTS.jsd_log_base, metavar="{2,e}"),
    Option("metrics", "the optional metrics to compute, comma-separated, from "
           f"{', '.join(METRIC_CHOICES)} (default: {','.join(EDITOR_METRICS)}, as the "
           "editor's analysis.metrics; --no-tsed takes TSED out)", A, _on(CHECK, MCP),
           group="analysis", type=metric_list, metavar="LIST"),
    Option("no-tsed", "skip TSED (tree edit distance; the slowest metric)", A,
           _on(CHECK, DEMO, MCP, SCORE), group="analysis", kind="off", dest="tsed",
           default=True),
    Option("max-depth", f"deepest tree level counted (default {DEFAULTS.max_depth})", A,
           _on(CHECK, DEMO, MCP, SCORE), group="analysis", type=positive,
           default=DEFAULTS.max_depth, metavar="D"),
    # ------------------------------------------------------------------ running versions
    Option("dynamic", _DYNAMIC_HELP, Reach.RUNS_CODE, _on(CHECK, SCORE), kind="flag",
           default=False),
    Option("dynamic", "also run the versions against HumanEval's tests in the sandbox (pass "
           "rates, output agreement, opcode divergence; ~15 s)", Reach.RUNS_CODE, _on(DEMO),
           kind="flag", default=False),
    Option("timeout", f"with --dynamic: budget of one version (default {DEFAULTS.timeout:g})",
           Reach.SANDBOX, _on(CHECK), type=seconds, default=DEFAULTS.timeout,
           metavar="SECONDS"),
    Option("timeout", "check_function with dynamic: budget of one version in the sandbox "
           f"(default {DEFAULTS.timeout:g})", Reach.SANDBOX, _on(MCP), group="analysis",
           type=seconds, default=DEFAULTS.timeout, metavar="SECONDS"),
    Option("sandbox", "isolation of the versions run with --dynamic: auto (strict where "
           "the machine gives it, else portable; every report says which ran and why), "
           "strict (kernel namespaces and seccomp; refuses to run where the machine cannot "
           "give them), portable (CPython on WASI under wasmtime: memory cap, fuel, no file "
           "but the standard library and the module, on every OS) or weak (no namespaces; "
           "every report warns) (default auto; `codequorum doctor` tells what this machine "
           "gives)", Reach.SANDBOX, _on(CHECK, DEMO, SCORE),
           choices=list(SANDBOX_LEVELS), default=DEFAULTS.sandbox, project_values=_strict),
    Option("sandbox", "check_function with dynamic: isolation of the versions: auto (strict "
           "where the machine gives it, else portable), strict or portable; never weak for "
           "an agent (default auto)", Reach.SANDBOX, _on(MCP), group="analysis",
           choices=[level for level in SANDBOX_LEVELS if level != "weak"],
           default=DEFAULTS.sandbox, project_values=_strict),
    # ------------------------------------------------------------------ the endpoint
    Option("propose-inputs", "with --dynamic: ask the endpoint for call inputs of functions "
           "that have no tests, no doctest examples and no annotated parameters (arguments "
           "only, never expected results, read as literal data and run in the sandbox) "
           "(default: off)", Reach.SPENDS_KEY, _on(CHECK, SCORE), group="endpoint",
           kind="either", default=False, project_values=_is_false),
    Option("propose-timeout", "with --propose-inputs: seconds to wait for the endpoint's "
           "answer; one that does not answer is not asked again in the run (default: "
           "%(default)g)", A, _on(CHECK, SCORE), group="endpoint", type=seconds,
           default=DEFAULT_PROPOSE_TIMEOUT, metavar="SECONDS"),
    Option("base-url", "OpenAI-compatible base URL, e.g. http://localhost:11434/v1 "
           "(default: $CODEQUORUM_BASE_URL or %(default)s)", Reach.ENDPOINT,
           _on(CHECK, MCP, SAMPLE, SCORE), group="endpoint", default=DEFAULT_BASE_URL,
           env_default="CODEQUORUM_BASE_URL"),
    Option("model", "model name (default: $CODEQUORUM_MODEL or %(default)s)", Reach.MODEL,
           _on(CHECK, MCP, SAMPLE, SCORE), group="endpoint", default=DEFAULT_MODEL,
           env_default="CODEQUORUM_MODEL"),
    Option("api-key-env", "environment variable holding the API key; '' sends none "
           "(default: %(default)s)", Reach.KEY_VARIABLE, _on(CHECK, MCP, SAMPLE, SCORE),
           group="endpoint", default=DEFAULT_API_KEY_ENV, metavar="VAR"),
    Option("versions", "versions to ask for (default: %(default)s)", Reach.TOKEN_SPEND,
           _on(SAMPLE), group="endpoint",
           flags=("--versions", "--samples", "-n"), type=positive, default=_PROVIDER.versions,
           metavar="N", project_values=_at_most(PROJECT_MAX_VERSIONS)),
    Option("versions", "versions one call asks for when the agent names no count (default: "
           "%(default)s)", A, _on(MCP), group="endpoint",
           flags=("--versions", "--samples", "-n"),
           type=positive, default=_PROVIDER.versions, metavar="N"),
    Option("temperature", "sampling temperature; above 0 so the versions can differ "
           "(default: %(default)s)", A, _on(SAMPLE), group="endpoint", type=float,
           default=_PROVIDER.temperature, metavar="T"),
    Option("temperature", "sampling temperature (default: %(default)s)", A, _on(MCP),
           group="endpoint", type=float, default=_PROVIDER.temperature, metavar="T"),
    Option("seed", "version k uses seed + k (default: none, the server chooses)", A,
           _on(SAMPLE), group="endpoint", type=int),
    Option("timeout", "seconds one request may take, counted from when it is sent "
           "(default: %(default)g)", A, _on(SAMPLE), group="endpoint", type=seconds,
           default=_PROVIDER.timeout, metavar="SECONDS"),
    Option("request-timeout", "seconds per request to the endpoint, counted from when it is "
           "sent (default: %(default)g)", A, _on(MCP), group="endpoint", type=seconds,
           default=DEFAULT_REQUEST_TIMEOUT, metavar="SECONDS"),
    Option("concurrency", "requests at once (default: auto — one at a time to a server on "
           "this machine or the local network, or as many as a llama.cpp server has slots "
           "for; 4 to a hosted API)", Reach.ENDPOINT_LOAD, _on(SAMPLE), group="endpoint",
           type=auto_or(1), metavar="N"),
    Option("concurrency", "requests at once (default: auto, as for sample)",
           Reach.ENDPOINT_LOAD, _on(MCP), group="endpoint", type=auto_or(1), metavar="N"),
    Option("max-tokens", "the most tokens one answer may have; 0 sends no bound (default: "
           "auto — three times the function's size, 256 to 4096)", Reach.TOKEN_SPEND,
           _on(SAMPLE), group="endpoint", type=auto_or(0), metavar="N"),
    Option("max-tokens", "the most tokens one answer may have; 0 sends no bound (default: "
           "auto, as for sample)", Reach.TOKEN_SPEND, _on(MCP), group="endpoint",
           type=auto_or(0), metavar="N"),
    Option("max-retries", "retries on 429/5xx answers (default: %(default)s)",
           Reach.TOKEN_SPEND, _on(SAMPLE), group="endpoint", type=at_least(0),
           default=_PROVIDER.max_retries, metavar="N",
           project_values=_at_most(PROJECT_MAX_RETRIES)),
    Option("use-n", "one request with n choices, when the server supports n (default: one "
           "request per version)", A, _on(SAMPLE), group="endpoint", kind="flag",
           default=_PROVIDER.use_n),
    Option("context-lines", "lines of the file around the function sent with the prompt "
           "(default: %(default)s)", A, _on(MCP, SAMPLE), group="endpoint",
           type=at_least(0), default=DEFAULT_CONTEXT_LINES, metavar="N"),
    # ------------------------------------------------------------------ cluster
    Option("scheduler", "score on a dask.distributed cluster: tcp://HOST:PORT, or local:N "
           "for N local worker processes (needs codequorum[distributed])", Reach.CLUSTER,
           _on(SCORE), group="cluster", metavar="ADDRESS", project_values=_local_workers),
    Option("resume", "with --scheduler and -o FILE (jsonl or csv): skip the sets already in "
           "FILE and append the others", Reach.OUTPUT, _on(SCORE), group="cluster",
           kind="flag", default=False, project_values=_is_false),
    # ------------------------------------------------------------------ score's analysis
    Option("metrics", "the optional metrics to compute, comma-separated, from "
           f"{', '.join(METRIC_CHOICES)} (default: {','.join(DEFAULT_METRICS)}; --no-tsed, "
           "--tsed-08 and --textual change the list)", A, _on(DEMO, SCORE), group="analysis",
           type=metric_list, metavar="LIST"),
    Option("tsed-08", "also compute TSED with the published (1, 0.8, 1) costs", A,
           _on(DEMO, SCORE), group="analysis", kind="flag", default=False),
    Option("textual", "also compute token LCS / Levenshtein and pycode_similar's "
           "UnifiedDiff / TreeDiff figures (JSON and CSV)", A, _on(DEMO, SCORE),
           group="analysis", kind="flag", default=False),
    Option("interpreter", "CPython whose bytecode SCTD counts (compiled, never run; with "
           "--dynamic it also runs the versions) (default: this one)", Reach.INTERPRETER,
           _on(DEMO, SCORE), group="analysis", metavar="PATH"),
    Option("risk-level", "with --dynamic: where a set's risk takes its level from: run, the "
           "rate of wrong kept versions the run's sets of the same model imply (where they "
           "are enough to tell it), or set, each set's own run alone (default: run)", A,
           _on(DEMO, SCORE), group="analysis", choices=list(RISK_LEVELS),
           default=DEFAULTS.risk_level),
    Option("cluster-threshold", "versions group while their mean 1 - JSD distance is <= X "
           f"(default {DEFAULTS.cluster_threshold:g})", A, _on(DEMO, SCORE), group="analysis",
           type=float, default=DEFAULTS.cluster_threshold, metavar="X"),
    Option("stable-jsd", "a set is stable when its mean JSD (structure) is >= X (default: "
           "unstable when less stable than 75 %% of HumanEval functions)", A,
           _on(DEMO, SCORE), group="analysis", type=float, metavar="X"),
    Option("outlier-gap", "a version is an outlier when its mean similarity to the others "
           f"is more than X below the median (default {DEFAULTS.outlier_gap:g})", A,
           _on(DEMO, SCORE), group="analysis", type=float, default=DEFAULTS.outlier_gap,
           metavar="X"),
    Option("versions", "score the first K versions of each set", A, _on(DEMO, SCORE),
           group="analysis",
           flags=("--versions", "--samples"), type=positive, metavar="K"),
    # ------------------------------------------------------------------ score's output
    Option("format", formats_help(), A, _on(DEMO, SCORE), group="output",
           dest="output_format", metavar="FORMAT", values=FORMAT_NAMES),
    Option("output", "write the result to FILE instead of standard output", Reach.OUTPUT,
           _on(DEMO, SCORE), group="output", flags=("-o", "--output"), metavar="FILE"),
    Option("matrices", "JSON: include the full pair matrices", A, _on(DEMO, SCORE),
           group="output", kind="flag", default=False),
    Option("reasons", "table: add the verdict's reason to each row", A, _on(DEMO, SCORE),
           group="output", kind="flag", default=False),
    Option("jobs", "score sets in N worker processes (default 1)", Reach.PROCESSES,
           _on(DEMO, SCORE), group="output", flags=("--jobs", "-j"), type=positive, default=1,
           metavar="N", project_values=within_cores),
    Option("compare", "html: show this run against another run's --format json report "
           "(another model or temperature)", Reach.PROJECT_FILE, _on(SCORE),
           metavar="REPORT"),
    # ------------------------------------------------------------------ doctor, lsp
    Option("interpreter", "Python that would run candidates (default: this one)",
           Reach.INTERPRETER, _on(DOCTOR), metavar="PATH"),
    Option("format", "output format (default text)", A, _on(DOCTOR),
           choices=["text", "json"], default="text"),
    Option("sandbox", "answer for this level: whether versions run at it here (auto, "
           "strict, portable or weak, as --sandbox of check, demo and score; portable "
           "compiles its interpreter first when it is not in the cache); the exit status is "
           "0 when they do (default: the strict sandbox's layers, exit 0 when it holds)",
           Reach.SANDBOX, _on(DOCTOR), choices=list(SANDBOX_LEVELS), metavar="LEVEL",
           project_values=_strict),
    Option("prepare", "compile the portable sandbox's interpreter into the user's cache now "
           "(once, tens of seconds, with a progress bar) instead of at the first run",
           Reach.SANDBOX, _on(DOCTOR), kind="flag", default=False),
    Option("if-needed", "with --prepare: only where the strict sandbox is missing (where "
           "`auto` runs versions in the portable one); elsewhere say so and stop",
           Reach.SANDBOX, _on(DOCTOR), kind="flag", default=False),
    Option("stdio", "talk over stdin/stdout (the default)", A, _on(LSP), kind="flag",
           default=False),
    Option("tcp", "listen on a TCP address instead of stdio", Reach.NETWORK, _on(LSP),
           metavar="HOST:PORT"),
    Option("log-level", "level of the log written to stderr (default WARNING)", A, _on(LSP),
           choices=["DEBUG", "INFO", "WARNING", "ERROR"], default="WARNING"),
    Option("log-file", "write the log to this file", Reach.OUTPUT, _on(LSP), metavar="PATH"),
    # ------------------------------------------------------------------ every command
    Option("quiet", "print results and errors only: no progress, notes or hints", A, _ALL,
           group="output control", mutex="loudness", flags=("-q", "--quiet"), kind="flag",
           default=False),
    Option("verbose", "say more: -v logs what happens on standard error, -vv debug details",
           A, _ALL, group="output control", mutex="loudness", flags=("-v", "--verbose"),
           kind="count", default=0),
    Option("color", "colour the output: auto colours a terminal unless NO_COLOR is set "
           "(default: %(default)s)", A, _ALL, group="output control", choices=COLOR_MODES,
           default="auto"),
    Option("config", "take defaults from this TOML file instead of the closest "
           "codequorum.toml or pyproject.toml [tool.codequorum] (the user-level file still "
           "applies; this one is read as a project's)", Reach.CONFIGURATION, _ALL,
           group="configuration", mutex="source", type=Path, metavar="PATH"),
    Option("isolated", "ignore every configuration file, the user's own included",
           Reach.CONFIGURATION, _ALL, group="configuration", mutex="source", kind="flag",
           default=False),
)


def options_for(command: str, *, common: bool = True) -> Iterator[Option]:
    """The options of ``command`` in the order of its help (with those of every command,
    unless ``common`` is false)."""
    return (option for option in OPTIONS if command in option.commands
            or (common and EVERY in option.commands))


def keys_of(command: str) -> dict[str, Option]:
    """The configuration keys of ``command``: each long flag without ``--``."""
    return {key: option for option in options_for(command) for key in option.keys}


# ---------------------------------------------------------------------- editor settings

#: The JSON type of an editor setting: ``integer?`` a whole number or null, ``boolean?``
#: true, false or null, ``strings`` a list of strings (of ``enum``, when it has one, each
#: once).
SettingType = Literal["string", "integer", "number", "boolean", "integer?", "boolean?",
                      "strings"]


@dataclass(frozen=True)
class Setting:
    """One editor setting (``codequorum.<name>``): what it takes, its default and
    description, what it can do (``reach``; only a setting a project may set has no
    ``"scope": "machine"``), whether VS Code ignores a workspace's value of it in an
    untrusted workspace (``restricted``), and the option whose configuration-file value is
    its default in a workspace (``mirrors``: the command and the option's attribute)."""

    name: str
    type: SettingType
    default: Any
    description: str
    reach: Reach
    restricted: bool = False
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    enum: tuple[str, ...] = ()
    enum_descriptions: tuple[str, ...] = ()
    #: The values a workspace may still give a setting that is otherwise the user's alone.
    project_values: tuple[object, ...] = ()
    #: Read by the editor client only; the language server accepts and ignores it.
    client: bool = False
    #: Where the language server keeps it: ``group.attribute`` of its settings (default:
    #: the name in snake case).
    attr: str = ""
    mirrors: tuple[str, str] | None = None
    #: A deprecated spelling: the setting to use instead (the server still reads it, and
    #: says so in a warning when it is given).
    deprecated: str = ""

    @property
    def path(self) -> tuple[str, str]:
        """The settings group and attribute the language server keeps the value in."""
        dotted = self.attr or _snake(self.name)
        group, _, attribute = dotted.partition(".")
        return group, attribute


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


#: Every editor setting, in the order of the settings schema and the editor's settings page.
SETTINGS: tuple[Setting, ...] = (
    Setting('store.path', 'string', '',
            "Path of the SQLite version store. Empty: <workspace>/.codequorum/samples.sqlite3."
            " A relative path is resolved against the workspace folder.",
            reach=Reach.STORE, restricted=True, mirrors=('check', 'store')),
    Setting('provider.kind', 'string', 'openai-compatible',
            "Who generates new versions of a function when you ask to regenerate.",
            reach=Reach.ENDPOINT, restricted=True, enum=('openai-compatible', 'client'),
            enum_descriptions=(
                "The language server asks an OpenAI-compatible chat-completions endpoint for "
                "new versions.",
                "The editor client generates the versions (for example with the VS Code "
                "language-model API) and relays them with codequorum.addSamples; "
                "codequorum.regenerate returns the prompt messages to send.",
            )),
    Setting('provider.baseUrl', 'string', DEFAULT_BASE_URL,
            "Base URL of the OpenAI-compatible API (the path /chat/completions is appended). "
            "Works with OpenAI, Ollama (http://localhost:11434/v1), vLLM, llama.cpp server and"
            " others.",
            reach=Reach.ENDPOINT, restricted=True, mirrors=('sample', 'base_url')),
    Setting('provider.model', 'string', DEFAULT_MODEL,
            "Model name sent with each chat-completions request.",
            reach=Reach.MODEL, mirrors=('sample', 'model')),
    Setting('provider.apiKeyEnv', 'string', DEFAULT_API_KEY_ENV,
            "Name of the environment variable (in the language server's environment) that "
            "holds the API key. The key itself is never stored in settings. Empty: send no "
            "key.",
            reach=Reach.KEY_VARIABLE, restricted=True, mirrors=('sample', 'api_key_env')),
    Setting('provider.temperature', 'number', _PROVIDER.temperature,
            "Sampling temperature for regenerated versions.",
            reach=A, minimum=0, maximum=2, mirrors=('sample', 'temperature')),
    Setting('provider.versions', 'integer', _PROVIDER.versions,
            "How many versions to ask for per regeneration.",
            reach=A, minimum=1, maximum=50, mirrors=('sample', 'versions')),
    Setting('provider.samples', 'integer?', None,
            "Deprecated: use codequorum.provider.versions (read when that one is not set).",
            reach=A, minimum=1, maximum=50, deprecated="codequorum.provider.versions"),
    Setting('provider.seed', 'integer?', None,
            "Seed sent with each request (null: none). Version k uses seed + k.",
            reach=A, mirrors=('sample', 'seed')),
    Setting('provider.timeout', 'number', _PROVIDER.timeout,
            "Seconds one chat-completions request may take, counted from when it is sent (a "
            "request waiting for its turn is not yet sent).",
            reach=A, minimum=0, exclusive_minimum=True, maximum=600,
            mirrors=('sample', 'timeout')),
    Setting('provider.maxRetries', 'integer', _PROVIDER.max_retries,
            "Retries of one chat-completions request after a 429 or 5xx answer or a network "
            "error, with backoff.",
            reach=A, minimum=0, maximum=10, mirrors=('sample', 'max_retries')),
    Setting('provider.useN', 'boolean', _PROVIDER.use_n,
            "Ask for all versions in one request with `n` choices (only for servers that "
            "support `n`); otherwise one request per version.",
            reach=A, mirrors=('sample', 'use_n')),
    Setting('provider.concurrency', 'integer?', None,
            "Requests sent at once. null: one at a time to a server on this machine or the "
            "local network (llama.cpp, Ollama, LM Studio and vLLM on localhost or a private "
            "address), or as many as a llama.cpp server says it has slots for (at most 8); 4 "
            "to a hosted API. More requests than the server answers at once wait in its queue,"
            " and that wait counts against the timeout.",
            reach=Reach.ENDPOINT_LOAD, restricted=True, minimum=1, maximum=64,
            mirrors=('sample', 'concurrency')),
    Setting('provider.maxTokens', 'integer?', None,
            "The most tokens one answer may have (sent as max_tokens), so a runaway answer "
            "ends. null: three times the size of the function asked for, at least 256 and at "
            "most 4096 tokens. 0: send no bound (the server's own applies). Reasoning models "
            "spend their thinking from the same budget: give them more.",
            reach=Reach.TOKEN_SPEND, restricted=True, minimum=0, maximum=131072,
            mirrors=('sample', 'max_tokens')),
    Setting('diagnostics.enable', 'boolean', True,
            "Report unstable functions as diagnostics.",
            reach=Reach.VISIBILITY, project_values=(True,)),
    Setting('diagnostics.onType', 'boolean', False,
            "Also refresh diagnostics while typing (debounced), not only on open and save.",
            reach=A),
    Setting('diagnostics.debounceMs', 'integer', 500,
            "Milliseconds of quiet after the last change before diagnostics refresh when "
            "diagnostics.onType is on.",
            reach=A, minimum=0, maximum=10000),
    Setting('diagnostics.minSeverity', 'string', 'hint',
            "Least severe finding that is still reported as a diagnostic.",
            reach=Reach.VISIBILITY, project_values=('hint',),
            enum=('error', 'warning', 'information', 'hint')),
    Setting('hover.enable', 'boolean', True,
            "Show the stability summary when hovering a function that has versions.",
            reach=Reach.VISIBILITY, project_values=(True,)),
    Setting('hover.diffLines', 'integer', 12,
            "Most lines of the unified diff (current code against the most different version) "
            "shown in the hover. 0 hides the diff.",
            reach=Reach.VISIBILITY, project_values=(12,), minimum=0, maximum=200),
    Setting('codeLens.enable', 'boolean', True,
            "Show code lenses (versions, stability, Compare, Regenerate) above functions that "
            "have versions.",
            reach=Reach.VISIBILITY, project_values=(True,)),
    Setting('codeLens.showForAll', 'boolean', False,
            "Also show a Regenerate lens above functions that have no versions yet.",
            reach=A),
    Setting('codeAction.commands', 'string', 'auto',
            "Offer the commands (Compare, Show Report, Run Versions, Regenerate, Clear) as "
            "code actions on the function, so an editor without code lenses reaches them from "
            "its code action menu.",
            reach=Reach.VISIBILITY, project_values=('auto', 'always'),
            enum=('auto', 'always', 'never'),
            enum_descriptions=(
                "Every command in editors that draw no code lenses (they say so when they "
                "start the server: Emacs with eglot, Helix, Neovim); in the others, those no "
                "lens runs (Run Versions, Clear). The VS Code extension shows none: its own "
                "commands reach them all.",
                "Every command, also where a lens runs it.",
                "None: the commands stay reachable through the lenses and "
                "workspace/executeCommand.",
            )),
    Setting('analysis.includeCurrent', 'boolean', DEFAULTS.include_current,
            "Count the function's current code as one of the versions (origin \"current\"), so"
            " the report says whether it is in the consensus.",
            reach=Reach.VISIBILITY, project_values=(True,)),
    Setting('analysis.maxDepth', 'integer', DEFAULTS.max_depth,
            "Deepest syntax-tree level counted by the structural metrics (SCE, JSD).",
            reach=A, minimum=1, maximum=200, mirrors=('check', 'max_depth')),
    Setting('analysis.metrics', 'strings', list(DEFAULTS.metrics),
            "The optional metrics a function's analysis computes (hover, report, Compare), "
            "beyond the structural ones every analysis has: tsed (tree edit distance "
            "similarity), tsed_08 (TSED with the published (1, 0.8, 1) costs), textual (token "
            "LCS and Levenshtein, pycode_similar's UnifiedDiff and TreeDiff). Diagnostics and "
            "lenses compute none of them.",
            reach=A, enum=METRIC_CHOICES, mirrors=('check', 'metrics')),
    Setting('analysis.tsed', 'boolean?', None,
            "Deprecated: use codequorum.analysis.metrics. false takes tsed out of it, true "
            "adds it; null leaves it as it is.",
            reach=A, mirrors=('check', 'tsed'), deprecated="codequorum.analysis.metrics"),
    Setting('dynamic.enable', 'boolean', True,
            "Allow running the versions in the sandbox (SCTD, DCTD, BEF, OER) when asked with "
            "codequorum.runDynamic. Versions are run only in sandboxed child processes, never "
            "in the language server.",
            reach=Reach.RUNS_CODE, restricted=True),
    Setting('dynamic.auto', 'boolean', True,
            "Run the versions in the sandbox as soon as they arrive (regenerated, relayed from"
            " a VS Code language model, imported, or asked for by the watch), so the first "
            "hover's recommendation and risk rest on behaviour: Python, JavaScript and "
            "TypeScript, in the sandbox codequorum.dynamic.sandbox picks (auto: the strict one "
            "where the machine gives it, else the portable one, its interpreter compiled once "
            "with a cancellable progress; never weak; where none runs, the hover says what is "
            "missing), "
            "never in an untrusted workspace, and the versions of a store that came with a "
            "repository only after you approve it. Off: they run when you ask (Run Versions).",
            reach=Reach.RUNS_CODE, restricted=True),
    Setting('dynamic.timeout', 'number', DEFAULTS.timeout,
            "Wall-clock seconds allowed for one version's sandboxed run.",
            reach=Reach.SANDBOX, restricted=True, minimum=0, exclusive_minimum=True,
            maximum=600, mirrors=('check', 'timeout'), attr='analysis.timeout'),
    Setting('dynamic.sandbox', 'string', DEFAULTS.sandbox,
            "Isolation the versions run under in the sandbox.",
            reach=Reach.SANDBOX, restricted=True, enum=SANDBOX_LEVELS,
            project_values=('strict', 'auto'), mirrors=('score', 'sandbox'),
            attr='analysis.sandbox',
            enum_descriptions=(
                "The strict sandbox where this machine gives it, else the portable one; "
                "every result says which ran and why.",
                "Each version runs in its own kernel namespaces with a seccomp filter and a "
                "read-only view of the system; where the kernel cannot give that, versions do "
                "not run and the message says why.",
                "Each version runs in CPython 3.11 built for WebAssembly (WASI) under "
                "wasmtime: a memory cap, a CPU budget in fuel, no file but the standard "
                "library and the module's view, no socket, no host environment. Works on "
                "every OS; the interpreter is compiled once into your cache.",
                "Only the in-process audit hook, resource limits and a private directory: for "
                "machines without namespaces. Every result says it ran weak.",
            )),
    Setting('dynamic.proposeInputs', 'boolean', False,
            "When a function has no tests, no doctest examples and no annotated parameters, "
            "ask the provider's endpoint (codequorum.provider.baseUrl, model, apiKeyEnv) for "
            "call inputs to run the versions on: arguments only, never expected results, read "
            "as literal data and run in the sandbox. The key goes to an endpoint or variable "
            "other than the default only after you approve it (asked once per endpoint and key"
            " variable); nothing is sent in an untrusted workspace.",
            reach=Reach.SPENDS_KEY, restricted=True, project_values=(False,),
            mirrors=('score', 'propose_inputs')),
    Setting('watch', 'string', 'ask',
            "What codequorum does when a function arrives in one edit instead of being typed: "
            "its text is kept as a version (origin assistant) and more versions come from the "
            "configured provider (the endpoint, or a VS Code language model with provider.kind"
            " = client), after a short pause, and not once you edit that function again. Never"
            " in an untrusted workspace; the key goes to an endpoint other than the default "
            "only after you approve it.",
            reach=Reach.SPENDS_KEY, restricted=True, enum=('off', 'ask', 'auto'),
            attr='watch.mode',
            enum_descriptions=(
                "Functions that arrive in one edit are not noticed.",
                "When a function arrives in one edit (an accepted inline completion, a chat or"
                " agent edit, a paste of several lines), a one-click offer asks whether to get"
                " more versions of it to check it; the answer \"Always in this workspace\" or "
                "\"Never in this workspace\" is remembered.",
                "More versions of such a function are asked for at once (at most "
                "codequorum.watchMaxPerHour samplings an hour).",
            )),
    Setting('watchMaxPerHour', 'integer', 12,
            "The most samplings the watch (codequorum.watch) asks for in any hour; beyond it, "
            "functions that arrive are left alone until the hour allows more. 0: none.",
            reach=Reach.TOKEN_SPEND, restricted=True, minimum=0, maximum=1000,
            attr='watch.max_per_hour'),
    Setting('server.command', 'strings', [],
            "Command that starts the language server (for example [\"python\", \"-m\", "
            "\"codequorum\", \"lsp\"]). Empty: the client finds it.",
            reach=Reach.PROGRAM, restricted=True, client=True),
    Setting('trace.server', 'string', 'off',
            "Trace the messages between the editor and the language server in the output "
            "panel.",
            reach=A, enum=('off', 'messages', 'verbose'), client=True),
    Setting('interpreter', 'string', '',
            "Python interpreter that runs the language server (`<interpreter> -m codequorum "
            "lsp`). Empty: the Python extension's active environment, else python3. Ignored "
            "when codequorum.server.command is set. A machine setting, yours alone (a "
            "workspace's settings cannot name a program to run): in a remote window "
            "(Remote-SSH, WSL, Dev Containers, Codespaces, code-server) set it in the Remote "
            "settings (Preferences: Open Remote Settings (JSON)); a value in User settings is "
            "ignored there.",
            reach=Reach.INTERPRETER, restricted=True, client=True),
    Setting('languageModel.vendor', 'string', 'copilot',
            "Vendor of the VS Code language models used by \"Regenerate with a VS Code "
            "Language Model\" (for example copilot). Empty: any vendor.",
            reach=A, client=True),
    Setting('languageModel.family', 'string', '',
            "Model family used by \"Regenerate with a VS Code Language Model\" (for example "
            "gpt-4o). Empty: choose among the available models.",
            reach=A, client=True),
    Setting('statusBar.enable', 'boolean', True,
            "Show the stability of the function under the cursor in the status bar.",
            reach=Reach.VISIBILITY, project_values=(True,), client=True),
)


def editor_settings() -> dict[tuple[str, str], str]:
    """(command, option attribute) -> the editor setting that mirrors the option."""
    return {setting.mirrors: setting.name for setting in SETTINGS if setting.mirrors}
