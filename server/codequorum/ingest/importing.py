"""Bring versions of a function that were made elsewhere into the store.

Three inputs are understood:

- a sample-set file (codequorum JSONL rows ``{"task_id", "samples", "prompt"?,
  "language"?, "entry_point"?}``, HumanEval sample rows or bigcode generations, read by
  :mod:`codequorum.ingest.version_files`); the set is chosen by ``task_id``, else by an
  ``entry_point`` equal to the function's name, else the file's only set; versions that only
  complete the set's prompt (bodies to append to it) are joined to it
  (:func:`codequorum.ingest.version_files.join_completions`);
- a JSON list of code strings;
- a directory: each file in it (sorted; hidden files skipped) is one version;
- any other file (source code, or a chat answer saved as it came): one version.

A version given as a chat answer (prose around a fenced block, or a sentence and then the
code without a fence) is read as a generated answer is
(:func:`codequorum.ingest.extract.extract_function`), wherever it comes from.

Each version is reduced to the one function and its own helpers (by qualified name, the
same check as for generated answers), so imported and regenerated versions compare alike;
versions that do not parse or do not define the function are skipped with the reason.

Every version counts, identical ones too (six identical answers are six versions). An
import brings the store up to the copies of each code the input holds, so importing the
same input again adds nothing.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codequorum.core.errors import UserError
from codequorum.core.limits import json_depth_problem
from codequorum.core.model import Version, VersionSet
from codequorum.core.safe_paths import UnreadableFile, read_regular
from codequorum.ingest.extract import (
    ExtractResult,
    extract_from_code,
    extract_function,
    is_chat_answer,
)
from codequorum.ingest.store import VersionStore, content_hash
from codequorum.ingest.version_files import (
    ReadError,
    ReadOptions,
    join_completions,
    read_version_sets,
)


@dataclass(frozen=True)
class Candidate:
    """One version read from an input, before validation."""

    label: str
    version: Version


@dataclass
class ImportReport:
    """What an import did: one row id per version kept (``duplicates`` of them were already
    stored copies) and what it skipped."""

    source: str
    file: str
    qualified_name: str
    stored: list[int] = field(default_factory=list)
    duplicates: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    task_id: str | None = None

    @property
    def added(self) -> int:
        """How many new rows the import made."""
        return len(self.stored) - self.duplicates

    def summary(self) -> str:
        """E.g. ``imported 8 versions of `f` (2 already stored, 1 skipped)``; ``1 version``."""
        noun = "version" if self.added == 1 else "versions"
        text = f"imported {self.added} {noun} of `{self.qualified_name}`"
        extras = []
        if self.duplicates:
            extras.append(f"{self.duplicates} already stored")
        if self.skipped:
            extras.append(f"{len(self.skipped)} skipped")
        return text + (f" ({', '.join(extras)})" if extras else "")


def read_candidates(
    source: str | Path,
    language: str,
    *,
    task_id: str | None = None,
    entry_point: str | None = None,
) -> tuple[list[Candidate], str | None]:
    """The versions in ``source`` and the task id they came from (None for dirs and lists).

    Raises :class:`UserError` when the input cannot be read or no set fits.
    """
    path = Path(source)
    if path.is_dir():
        return _from_directory(path), None
    if not path.exists():
        raise UserError(f"{path}: no such file or directory")
    data = _read_text(path)
    if not data.lstrip().startswith(("{", "[")):  # not JSON, nor JSONL: code or an answer
        return [Candidate(path.name, Version(code=data, label=path.stem))], None
    doc = _json_document(data)
    if isinstance(doc, list) and all(isinstance(item, str) for item in doc):
        return [
            Candidate(f"{path.name}[{k}]", Version(code=code, label=f"{path.stem}#{k + 1}"))
            for k, code in enumerate(doc)
        ], None
    chosen = join_completions(_choose_set(path, language, task_id, entry_point), entry_point)
    candidates = [
        Candidate(f"{chosen.task_id}#{k + 1}", _imported(s)) for k, s in enumerate(chosen.versions)
    ]
    return candidates, chosen.task_id


@dataclass
class PreparedImport:
    """The versions of one function an input holds, validated, before anything is stored:
    the accepted ones in order, and the report (what was skipped) to fill in."""

    accepted: list[Version]
    report: ImportReport


def prepare_import(
    source: str | Path,
    file: str,
    language: str,
    qualified_name: str,
    *,
    task_id: str | None = None,
) -> PreparedImport:
    """Read ``source`` and keep the versions that define ``qualified_name`` (nothing is
    stored yet: a caller with nothing to store need not open a store at all)."""
    short = qualified_name.rsplit(".", 1)[-1]
    candidates, chosen = read_candidates(source, language, task_id=task_id, entry_point=short)
    report = ImportReport(str(source), file, qualified_name, task_id=chosen)
    accepted: list[Version] = []
    for candidate in candidates:
        result = _extract(candidate.version.code, language, qualified_name)
        if not result.ok or result.code is None:
            report.skipped.append((candidate.label, result.reason or "rejected"))
            continue
        accepted.append(_with_code(candidate.version, result.code))
    return PreparedImport(accepted, report)


def store_import(store: VersionStore, prepared: PreparedImport, language: str) -> ImportReport:
    """Store the prepared versions: each code up to the copies the input holds."""
    report = prepared.report
    file, qualified_name = report.file, report.qualified_name
    rows = store.versions_for(file, qualified_name)
    stored = Counter(r.content_hash for r in rows)
    row_ids = {r.content_hash: r.id for r in rows}
    seen: Counter[str] = Counter()
    new: list[Version] = []
    positions: list[int] = []
    for version in prepared.accepted:
        digest = content_hash(version.code)
        seen[digest] += 1
        if seen[digest] <= stored[digest]:  # this copy is in the store already
            report.stored.append(row_ids[digest])
            report.duplicates += 1
        else:
            positions.append(len(report.stored))
            report.stored.append(-1)
            new.append(version)
    for position, row_id in zip(positions, store.add(file, language, qualified_name, new),
                                strict=True):
        report.stored[position] = row_id
    return report


def import_versions(
    store: VersionStore,
    source: str | Path,
    file: str,
    language: str,
    qualified_name: str,
    *,
    task_id: str | None = None,
) -> ImportReport:
    """Read ``source``, keep the versions that define ``qualified_name``, store them."""
    prepared = prepare_import(source, file, language, qualified_name, task_id=task_id)
    return store_import(store, prepared, language)


# --------------------------------------------------------------------------- internals


#: The largest file ``sample --from`` imports (the editor's ``importSamples`` bound).
MAX_IMPORT_FILE_BYTES = 16 * 1024 * 1024


def _read_text(path: Path) -> str:
    """A bounded regular file's text (never a FIFO or a device, never a huge file whole)."""
    try:
        return read_regular(path, MAX_IMPORT_FILE_BYTES).decode("utf-8-sig")
    except UnreadableFile as exc:
        raise UserError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _json_document(text: str) -> Any:
    """The whole text as one JSON value, or None when it is not one (e.g. JSONL, or JSON
    nested too deeply to decode, which the sample-set reader then reports)."""
    if json_depth_problem(text) is not None:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _from_directory(path: Path) -> list[Candidate]:
    files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise UserError(f"{path}: the directory holds no files to import")
    out: list[Candidate] = []
    for p in files:
        out.append(Candidate(p.name, Version(code=_read_text(p), label=p.stem)))
    return out


def _choose_set(
    path: Path, language: str, task_id: str | None, entry_point: str | None
) -> VersionSet:
    sets: list[VersionSet] = []
    errors: list[ReadError] = []
    for result in read_version_sets(path, ReadOptions(language=language)):
        (errors if isinstance(result, ReadError) else sets).append(result)  # type: ignore[arg-type]
    if not sets:
        detail = f": {errors[0]}" if errors else ""
        raise UserError(f"{path}: no sample sets could be read{detail}")
    if task_id is not None:
        for s in sets:
            if s.task_id == task_id:
                return s
        raise UserError(f"{path}: no sample set with task_id {task_id!r}")
    if entry_point is not None:
        matching = [s for s in sets if s.entry_point == entry_point]
        if len(matching) == 1:
            return matching[0]
        if len(matching) > 1:
            ids = ", ".join(s.task_id for s in matching[:5])
            raise UserError(
                f"{path}: several sample sets have entry_point {entry_point!r} ({ids}); "
                "choose one with --task"
            )
    if len(sets) == 1:
        return sets[0]
    ids = ", ".join(s.task_id for s in sets[:5]) + (", ..." if len(sets) > 5 else "")
    raise UserError(
        f"{path}: {len(sets)} sample sets and none has entry_point {entry_point!r}; "
        f"choose one with --task ({ids})"
    )


def _extract(code: str, language: str, qualified_name: str) -> ExtractResult:
    """The function from a version as given: read as a chat answer when it holds a fence
    or opens with a sentence (:func:`~codequorum.ingest.extract.is_chat_answer`), its code
    taken as a generated answer's is ("no code in the answer" when it has none), else as
    source code."""
    if is_chat_answer(code):
        return extract_function(code, language, qualified_name)
    return extract_from_code(code, language, qualified_name)


def _imported(version: Version) -> Version:
    return dataclasses.replace(version, origin="imported")


def _with_code(version: Version, code: str) -> Version:
    return dataclasses.replace(version, code=code, origin="imported")
