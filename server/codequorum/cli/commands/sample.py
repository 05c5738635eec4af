"""``codequorum sample``: collect versions of one function into the workspace's store.

By default it asks an OpenAI-compatible endpoint for new versions (the same prompt the
editor uses), validates each answer and stores the accepted ones as they arrive, printing
accepted and rejected versions with reasons (with ``-v``, the text of each rejected
answer) and every failure counted by kind. With ``--from`` it imports versions from a
sample-set file, a JSON list of code strings or a directory instead. Ctrl-C stops the
pending requests; versions already received stay stored.

The store is opened when the first version is to be kept, so a run that keeps nothing
makes no store. A store this command makes is the user's own: it is recorded as approved
(:mod:`codequorum.options.approvals`), as the language server records a store it makes, so the
editor runs its versions without asking whether it came with the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from codequorum.core.errors import UserError
from codequorum.core.limits import MAX_DOCUMENT_BYTES
from codequorum.core.model import Version
from codequorum.core.parsing import FunctionInfo, function_by_name, functions, language_from_path
from codequorum.core.parsing import normalize_language as _normalize_language
from codequorum.core.safe_paths import UnreadableFile, read_regular, real_path
from codequorum.core.safe_text import safe_text
from codequorum.core.words import count, names_listed
from codequorum.generate.endpoint import (
    Outcome,
    ProviderConfig,
    Rejected,
    RequestError,
    answer_budget,
    failure_message,
    regenerate,
)
from codequorum.generate.prompting import build_messages, prompt_hash
from codequorum.ingest.extract import unparsed_hint
from codequorum.ingest.importing import ImportReport, prepare_import, store_import
from codequorum.ingest.store import VersionStore, default_store_path
from codequorum.ingest.workspace import find_workspace, store_key
from codequorum.options.approvals import Approvals
from codequorum.options.arguments import add_options


def register(subparsers: Any) -> None:
    """Add the ``sample`` command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "sample",
        help="ask an LLM endpoint for versions of a function (or import them) into the store",
        description="Ask an OpenAI-compatible endpoint for new versions of one function (or "
        "import them with --from) and keep them in the workspace's version store.",
    )
    add_options(parser, "sample")
    parser.set_defaults(func=run, config_from="file")


@dataclass(frozen=True)
class _Target:
    """The function to collect versions of: its file's text and language, the function,
    the file's store key and the store."""

    text: str
    language: str
    function: FunctionInfo
    key: str
    store_path: Path
    workspace: Path


def _read_source(path: Path) -> str:
    """The text of FILE; a :class:`UserError` when it cannot be read."""
    try:
        return read_regular(path, MAX_DOCUMENT_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except UnreadableFile as exc:
        raise UserError(f"{exc}; codequorum does not read it") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read: {exc}") from None


@dataclass(frozen=True)
class SampleRequest:
    """``codequorum sample`` as asked, read from its arguments at its door."""

    file: Path
    function: str
    provider: ProviderConfig
    language: str | None = None        # ``--language`` as given
    source: Path | None = None         # ``--from``
    task: str | None = None
    workspace: Path | None = None
    store: Path | None = None
    print_prompt: bool = False
    context_lines: int = 30
    quiet: bool = False
    verbose: bool = False


def sample_request(args: argparse.Namespace) -> SampleRequest:
    """The request of ``codequorum sample``."""
    return SampleRequest(
        file=args.file, function=args.function, provider=provider_config(args),
        language=args.language, source=args.source, task=args.task,
        workspace=args.workspace, store=args.store, print_prompt=args.print_prompt,
        context_lines=args.context_lines, quiet=args.quiet,
        verbose=bool(getattr(args, "verbose", 0)))


def _target(request: SampleRequest) -> _Target:
    """The function named on the command line, found in FILE, and where its versions go."""
    path = request.file
    text = _read_source(path)
    language = (_normalize_language(request.language) if request.language
                else language_from_path(path))
    function = _function(text, language, request.function, path)
    workspace = real_path(request.workspace or find_workspace(path))
    key = store_key(path, workspace)
    return _Target(text, language, function, key,
                   request.store or default_store_path(workspace), workspace)


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Regenerate (or import) versions of the function; 0 when at least one was stored."""
    return run_sample(sample_request(args), out)


def run_sample(request: SampleRequest, out: TextIO | None = None) -> int:
    """:func:`run` for a request read at the door."""
    stream = out or sys.stdout
    target = _target(request)
    if request.source is not None:
        return _import(request, request.source, target, stream)
    messages = build_messages(target.text, target.language, target.function,
                              request.context_lines, path=target.key)
    if request.print_prompt:
        for message in messages:
            print(f"--- {message['role']} ---\n{message['content']}", file=stream)
        return 0
    return _regenerate(request, target, messages, stream)


def _import(request: SampleRequest, source: Path, target: _Target, stream: TextIO) -> int:
    """``--from SOURCE``: store the versions of the function found in it, say what was
    skipped and how many versions the function now has (no store is made when the source
    holds none)."""
    name = target.function.qualified_name
    prepared = prepare_import(source, target.key, target.language, name,
                              task_id=request.task)
    if not request.quiet:
        for label, reason in prepared.report.skipped:
            print(f"  skipped {safe_text(label)}: {safe_text(reason)}", file=stream)
    if not prepared.accepted:
        print(_import_summary(prepared.report), file=stream)
        raise UserError(f"no version in {source} defines `{name}`")
    with _open_store(target) as store:
        report = store_import(store, prepared, target.language)
        total = store.count(target.key, name)
    print(
        f"{_import_summary(report)}; `{name}` in {safe_text(target.key)} now has "
        f"{count(total, 'version')} in {safe_text(target.store_path)}",
        file=stream,
    )
    return 0


def provider_config(args: argparse.Namespace) -> ProviderConfig:
    """The endpoint and how to ask it, from the command line."""
    return ProviderConfig(
        base_url=args.base_url,
        model=args.model,
        api_key_env=args.api_key_env or None,
        temperature=args.temperature,
        versions=args.versions,
        seed=args.seed,
        timeout=args.timeout,
        max_retries=max(0, args.max_retries),
        use_n=args.use_n,
        concurrency=args.concurrency,
        max_tokens=args.max_tokens,
    )


#: The most characters of a rejected answer ``-v`` prints.
ANSWER_SHOWN = 2000


def answer_lines(rejected: Rejected) -> list[str]:
    """The text of a rejected answer as ``-v`` prints it: escaped, at most
    :data:`ANSWER_SHOWN` characters, each line behind a bar."""
    text = safe_text(rejected.answer, ANSWER_SHOWN, keep_newlines=True)
    return [f"      | {line}" for line in (text.split("\n") if text else ["(empty)"])]


def outcome_line(index: int, outcome: Outcome, shown_errors: Collection[str]) -> str | None:
    """The line printed when answer ``index`` arrives: accepted with its size, rejected
    with the reason, or the request's error — every one, but an unreachable endpoint
    once (None when its message is already in ``shown_errors``: the other requests
    were never sent)."""
    if isinstance(outcome, Version):
        seed = "" if outcome.seed is None else f" (seed {outcome.seed})"
        lines = count(outcome.code.count("\n"), "line")
        return f"  version {index + 1}{seed}: accepted, {lines}"
    if isinstance(outcome, RequestError) and outcome.kind == "unreachable" \
            and outcome.message in shown_errors:
        return None
    return f"  {safe_text(outcome.describe())}"


@dataclass
class _Arrivals:
    """Stores each accepted version as it arrives (opening the store for the first one)
    and prints a line per answer (unless ``quiet``; with ``verbose``, a rejected answer's
    text too)."""

    target: _Target
    prompt_hash: str
    stream: TextIO
    quiet: bool
    verbose: bool
    store: VersionStore | None = None
    shown_errors: set[str] = field(default_factory=set)

    def on_version(self, index: int, outcome: Outcome) -> None:
        """One answer came: keep it when it holds a version, then say so."""
        target = self.target
        if isinstance(outcome, Version):
            if self.store is None:
                self.store = _open(target)
            self.store.add(target.key, target.language, target.function.qualified_name,
                           [outcome], prompt_hash=self.prompt_hash)
        line = outcome_line(index, outcome, self.shown_errors)
        if isinstance(outcome, RequestError):
            self.shown_errors.add(outcome.message)
        if line is None or self.quiet:
            return
        print(line, file=self.stream)
        if self.verbose and isinstance(outcome, Rejected):
            print("\n".join(answer_lines(outcome)), file=self.stream)
        self.stream.flush()

    def close(self) -> None:
        """Close the store, if one was opened."""
        if self.store is not None:
            self.store.close()


def _regenerate(request: SampleRequest, target: _Target, messages: list[dict[str, str]],
                stream: TextIO) -> int:
    """Ask the endpoint, storing versions as they arrive; 0 when one was accepted."""
    config = request.provider
    budget = answer_budget(target.function.text)
    name = target.function.qualified_name
    if not request.quiet:
        limit = config.token_limit(budget)
        bound = f", at most {limit:,} tokens each" if limit else ""
        print(
            f"asking {config.model} at {config.public_url} for "
            f"{count(config.versions, 'version')} of `{name}` ({safe_text(target.key)}){bound}",
            file=stream,
        )
    arrivals = _Arrivals(target, prompt_hash(messages), stream, request.quiet,
                         request.verbose)
    try:
        result = asyncio.run(regenerate(config, messages, config.versions, target.language,
                                        name, budget=budget, on_version=arrivals.on_version))
        total = (arrivals.store.count(target.key, name) if arrivals.store is not None
                 else None)
    finally:
        arrivals.close()
    where = ("nothing stored" if total is None else
             f"`{name}` now has {count(total, 'version')} in {safe_text(target.store_path)}")
    print(f"{result.summary()}; {where}", file=stream)
    failure = failure_message(result, name)
    if failure is not None:
        raise UserError(failure)
    return 0


def _import_summary(report: ImportReport) -> str:
    """E.g. ``imported 1 version of `f` (2 already stored, 1 skipped)``."""
    extras = []
    if report.duplicates:
        extras.append(f"{report.duplicates:,} already stored")
    if report.skipped:
        extras.append(f"{len(report.skipped):,} skipped")
    text = f"imported {count(report.added, 'version')} of `{report.qualified_name}`"
    return text + (f" ({', '.join(extras)})" if extras else "")


def _function(text: str, language: str, name: str, path: Path) -> FunctionInfo:
    found = function_by_name(text, language, name)
    if found is not None:
        return found
    known = [f.qualified_name for f in functions(text, language)]
    hint = f"; functions in the file: {names_listed(known)}" if known else ""
    raise UserError(f"{path}: no function `{name}`{hint}{unparsed_hint(text, language)}")


def _open(target: _Target) -> VersionStore:
    """Open (or make) the store, saying so when a damaged file was moved aside; a store
    this opening made is recorded as the user's own (approved to run)."""
    store = VersionStore.open(target.store_path, roots=[target.workspace])
    for warning in store.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if store.created:
        approvals = Approvals.default()
        try:
            approvals.approve_store(store.path, store.store_id)
        except OSError as exc:
            print(f"warning: cannot record the new store in {approvals.path}: {exc}; the "
                  "editor will ask before it runs its versions", file=sys.stderr)
    return store


@contextmanager
def _open_store(target: _Target) -> Iterator[VersionStore]:
    """:func:`_open`, closed after."""
    store = _open(target)
    try:
        yield store
    finally:
        store.close()
