"""``codequorum export``: the stored versions as a JSONL sample-set file ``score`` reads.

One line per function: ``task_id`` (``<file key>::<qualified name>``, as the editor and
``check`` name the set), ``language``, ``entry_point``, and ``samples`` with each version's
code, origin, label, provider, model, temperature and seed. The function's current code
joins them as ``check`` joins it (as one more version with origin ``current``, unless it
equals a stored one; ``current`` says which version it is) and is the set's ``prompt`` too,
so ``score`` trusts its doctests' expected values and breaks ties as ``check`` does: scoring
the file gives the figures ``check`` gives.

Nothing here runs or changes code. The current code is read only from a regular file
inside the workspace, at most :data:`~codequorum.core.limits.MAX_DOCUMENT_BYTES` long; a store
key that points elsewhere (a store that came with a repository may hold any key) is
exported without it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codequorum.core import parsing
from codequorum.core.errors import UserError
from codequorum.core.limits import MAX_DOCUMENT_BYTES
from codequorum.core.model import FunctionLocation, VersionSet
from codequorum.core.safe_paths import RefusedFile, guard, read_workspace_file
from codequorum.core.safe_text import json_inert, safe_text
from codequorum.core.words import count
from codequorum.ingest.store import StoredVersion, VersionStore, default_store_path
from codequorum.ingest.workspace import find_workspace, store_key
from codequorum.options.arguments import add_options
from codequorum.pipeline.session import build_version_set, current_code, examples_outside
from codequorum.render.outfile import check_output, open_output


def register(subparsers: Any) -> None:
    """Add ``export`` to the command line."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "export",
        help="write stored versions as a JSONL sample-set file that score reads",
        description="Write the versions kept in the version store as JSONL, one sample set "
        "per function (with each version's origin, provider and model), for `codequorum "
        "score`. The current code of each function joins its versions as `check` joins it.",
    )
    add_options(parser, "export")
    parser.set_defaults(func=run, config_from="paths")


@dataclass
class ExportRun:
    """What one export wrote and what it could not include."""

    sets: int = 0
    versions: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ExportRequest:
    """``codequorum export`` as asked, read from its arguments at its door."""

    paths: tuple[Path, ...] = ()
    functions: tuple[str, ...] = ()       # ``--function``: only these (none: every one)
    current: bool = True
    workspace: Path | None = None
    store: Path | None = None
    output: str | None = None
    quiet: bool = False


def export_request(args: argparse.Namespace) -> ExportRequest:
    """The request of ``codequorum export``."""
    return ExportRequest(paths=tuple(args.paths), functions=tuple(args.functions or ()),
                         current=args.current, workspace=args.workspace, store=args.store,
                         output=args.output, quiet=args.quiet)


def run(args: argparse.Namespace) -> int:
    """Write the selected functions' versions; 0 when at least one set was written."""
    return run_export(export_request(args))


def run_export(request: ExportRequest) -> int:
    """:func:`run` for a request read at the door."""
    paths = request.paths
    workspace = (request.workspace
                 or find_workspace(paths[0] if paths else Path.cwd())).resolve()
    store_path = guard(request.store or default_store_path(workspace), [workspace])
    if not store_path.is_file():
        raise UserError(f"no version store at {store_path}; nothing to export")
    check_output(request.output)
    keys = _selected_keys(paths, workspace)
    with VersionStore.open(store_path, roots=[workspace]) as store:
        for warning in store.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        result = ExportRun()
        rows = list(_rows(store, workspace, keys, request.functions, request.current,
                          result))
    if not rows:
        raise UserError(f"no stored versions to export in {store_path}"
                        + (" for the given paths or functions"
                           if keys or request.functions else ""))
    with open_output(request.output) as stream:
        for row in rows:
            # ASCII: a bidi or control character is escaped; no CI command either
            stream.write(json_inert(json.dumps(row)) + "\n")
    if not request.quiet:
        for note in result.notes:
            print(f"note: {safe_text(note)}", file=sys.stderr)
        where = f" to {request.output}" if request.output else ""
        print(f"exported {count(result.versions, 'version')} of "
              f"{count(result.sets, 'function')}{where}", file=sys.stderr)
    return 0


def _selected_keys(paths: Sequence[Path], workspace: Path) -> list[tuple[str, bool]] | None:
    """What the paths select: (store key, whether it is a folder's prefix); None for all."""
    if not paths:
        return None
    selected: list[tuple[str, bool]] = []
    for path in paths:
        if not path.exists():
            raise UserError(f"{path}: no such file or folder")
        key = store_key(path, workspace)
        if path.is_dir():
            selected.append(("" if key == "." else key + "/", True))
        else:
            selected.append((key, False))
    return selected


def _wanted(key: str, selected: list[tuple[str, bool]] | None) -> bool:
    if selected is None:
        return True
    return any(key.startswith(k) if prefix else key == k for k, prefix in selected)


def _rows(store: VersionStore, workspace: Path, keys: list[tuple[str, bool]] | None,
          functions: Sequence[str] | None, current: bool, result: ExportRun
          ) -> Iterator[dict[str, Any]]:
    """One sample-set row per stored function that is selected."""
    for key in store.files():
        if not _wanted(key, keys):
            continue
        names = [n for n in store.functions_with_versions(key) if not functions or n in functions]
        text = _current_text(key, workspace, result) if current and names else None
        for name in names:
            stored = store.versions_for(key, name)
            version_set = _version_set(key, name, stored, text, result)
            result.sets += 1
            result.versions += len(version_set.versions)
            yield version_set_row(version_set, name, key)


def _version_set(key: str, name: str, stored: Sequence[StoredVersion], text: str | None,
                result: ExportRun) -> VersionSet:
    """The set ``check`` analyses for one function: its versions and its current code."""
    language = stored[0].language
    code: str | None = None
    doc: str | None = None
    short = name.rsplit(".", 1)[-1]
    if text is not None:
        try:
            info = parsing.function_by_name(text, language, name)
        except Exception as exc:  # a file the parser refuses: exported without it
            result.notes.append(f"{key}: cannot read `{name}` ({exc}); exported without "
                                "its current code")
            info = None
        if info is None:
            result.notes.append(f"`{name}` is not in {key} any more; exported without its "
                                "current code")
        else:
            code, short = current_code(text, info), info.name
            doc = examples_outside(language, info.docstring)
    version_set, current = build_version_set(stored, code, file_key=key, language=language,
                                           qualified_name=name, name=short, prompt=doc)
    version_set.location = FunctionLocation(key, name, current)
    return version_set


def version_set_row(version_set: VersionSet, qualified_name: str, key: str) -> dict[str, Any]:
    """One JSONL line of the sample-set format (``shared/sample-set.schema.json``)."""
    current = next((s.code for s in version_set.versions if s.origin == "current"),
                   version_set.prompt)  # the current code, apart or a stored version
    row: dict[str, Any] = {
        "task_id": version_set.task_id,
        "language": version_set.language,
        "entry_point": version_set.entry_point,
        "file": key,
        "qualified_name": qualified_name,
    }
    if version_set.location is not None and version_set.location.current is not None:
        row["current"] = version_set.location.current
    if current is not None:
        row["prompt"] = _with_comment(version_set.prompt, current)
    row["samples"] = [
        {"code": s.code, "origin": s.origin, "label": s.label, "provider": s.provider,
         "model": s.model, "temperature": s.temperature, "seed": s.seed}
        for s in version_set.versions
    ]
    return row


def _with_comment(prompt: str | None, current: str) -> str:
    """The current code, after the comment above it where its language keeps the
    function's examples there (JavaScript's JSDoc, ``prompt``), so `score` reads them."""
    if not prompt or prompt == current:
        return current
    lines = "\n".join(f" * {line}".rstrip() for line in prompt.replace("*/", "* /").splitlines())
    return f"/**\n{lines}\n */\n{current}"


def _current_text(key: str, workspace: Path, result: ExportRun) -> str | None:
    """The text of the file a store key names, under the workspace's one rule
    (:func:`~codequorum.core.safe_paths.read_workspace_file`: a regular file inside the
    workspace, nothing hidden or secret-looking where the key or its links lead), at most
    :data:`MAX_DOCUMENT_BYTES`, UTF-8; else None with a note. A store may come with the
    repository, and its keys then name what it likes (``.env``, ``helper.py -> .env``)."""
    if key.startswith("file:") or ":" in key.split("/", 1)[0] or Path(key).is_absolute():
        result.notes.append(f"{key}: not a file of the workspace; exported without the "
                            "current code")
        return None
    try:
        _real, data = read_workspace_file(workspace.resolve(), workspace / key,
                                          MAX_DOCUMENT_BYTES)
    except RefusedFile as exc:
        result.notes.append(f"{key}: {exc}; exported without the current code")
        return None
    except OSError:
        result.notes.append(f"{key}: no such file; exported without the current code")
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        result.notes.append(f"{key}: not UTF-8 text; exported without the current code")
        return None
