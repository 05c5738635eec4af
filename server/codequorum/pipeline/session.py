"""One function's versions -> its report, for every front end (editor and command line).

A :class:`Session` owns the version store and the caches: it reads a function's stored
versions, adds the current code as one more version (origin ``current``) unless it is
identical to a stored one, and analyses the set. Static analyses are cached under one frozen
:class:`AnalysisKey` (the versions' content hashes, the current code, the analysis options),
so asking again with nothing new costs a dictionary look-up; a dynamic report, when one
exists, is merged in on read without computing the static analysis again. Nothing here
knows about a protocol: the language server and ``codequorum check`` both build on it.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import logging
import re
import textwrap
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from codequorum.behaviour.examples import UNREADABLE
from codequorum.core import parsing, pyast, run_seal
from codequorum.core.errors import UserError
from codequorum.core.limits import check_call_sizes
from codequorum.core.model import FunctionLocation, ModuleContext, Version, VersionSet
from codequorum.core.report import StabilityReport
from codequorum.ingest import workspace
from codequorum.ingest.store import StoredVersion, VersionStore, content_hash
from codequorum.ingest.version_helpers import without_module_copies
from codequorum.pipeline.analyze import (
    INPUT_LIMIT,
    DynamicLike,
    admit,
    analyze,
    refused,
)
from codequorum.pipeline.config import AnalysisConfig

if TYPE_CHECKING:
    from codequorum.behaviour.input_plan import Proposer
    from codequorum.ingest.js_module_view import JsModuleView
    from codequorum.ingest.module_view import ModuleView

log = logging.getLogger(__name__)

K = TypeVar("K")
T = TypeVar("T")

#: How many analyses (and dynamic reports) stay cached.
CACHE_LIMIT = 512
#: How many versions of one function's current code keep their analysis cached (undo hits).
VARIANTS_PER_FUNCTION = 6

Notify = Callable[[str, str], None]  # (level: "error" | "warning" | "info", message)


@dataclass(frozen=True)
class FunctionAnalysis:
    """One function's versions and what the engine says about them.

    ``version_set`` holds the stored versions in order, then the current code when it is
    not one of them; ``current_index`` is the current code's position (None when the
    current code is left out); ``most_different`` is the version least like the current
    code (like the consensus when there is no current); ``fastest`` comes from the dynamic
    report when one exists.
    """

    file_key: str
    qualified_name: str
    language: str
    stored: tuple[StoredVersion, ...]
    version_set: VersionSet
    current_index: int | None
    report: StabilityReport
    dynamic: Any | None
    key: str
    dyn_key: str
    most_different: int | None
    fastest: int | None

    @property
    def n_stored(self) -> int:
        """How many versions are stored (the current code not counted)."""
        return len(self.stored)

    def code(self, index: int) -> str:
        """Version ``index``'s code (0-based position in the sample set)."""
        return self.version_set.versions[index].code

    def label(self, index: int) -> str:
        """``v3``, ``current`` or ``v3 (current)``."""
        if index >= self.n_stored:
            return "current"
        name = f"v{index + 1}"
        return f"{name} (current)" if index == self.current_index else name

    @property
    def refused(self) -> bool:
        """True when the versions were refused before scoring (a bound of
        :mod:`codequorum.core.limits`): nothing of them may be compiled or run either."""
        return any(v.code == INPUT_LIMIT for v in self.report.verdicts)

    @property
    def stability(self) -> float | None:
        """The headline figure: mean structural JSD similarity over ordered pairs."""
        return self.report.pair("jsd_struct")

    @property
    def stable(self) -> bool:
        """True when no finding is a warning or an error."""
        return not any(v.severity in ("error", "warning") for v in self.report.verdicts)

    def cluster_of(self, index: int) -> int | None:
        """0-based cluster number holding version ``index`` (0 is the largest)."""
        for k, members in enumerate(self.report.clusters):
            if index in members:
                return k
        return None


def dedent_function(text: str, indent: str) -> str:
    """``text`` starts at its first column already; strip ``indent`` from the other lines."""
    if not indent:
        return text
    return textwrap.dedent(indent + text)


def function_indent(line: str, byte_col: int) -> str:
    """The indentation in front of a definition that starts at ``byte_col`` of ``line``."""
    head = line.encode("utf-8", errors="replace")[:byte_col].decode("utf-8", errors="ignore")
    return head if not head.strip() else head[: len(head) - len(head.lstrip())]


def _undecorated_hash(code: str) -> str | None:
    """The content hash of a stored Python version without its decorators (the file's
    code is compared from its ``def``: a version imported whole, ``@deprecated(...)``
    included, is still the current code); None for one without decorators."""
    if not code.lstrip().startswith("@"):
        return None
    try:
        tree = pyast.parse(code)
    except UNREADABLE:
        return None
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(defs) != 1 or not defs[0].decorator_list:
        return None
    lines = code.split("\n")[defs[0].lineno - 1:]
    return content_hash("\n".join(lines).strip("\n") + "\n")


def current_code(text: str, info: Any) -> str:
    """A function's code as it is compared with its stored versions: at column 0, one
    trailing newline. ``info`` is the :class:`~codequorum.core.parsing.FunctionInfo`."""
    row = int(info.start_point[0])
    lines = text.split("\n")
    line = lines[row] if 0 <= row < len(lines) else ""
    indent = function_indent(line, int(info.start_point[1]))
    return dedent_function(str(info.text), indent).strip("\n") + "\n"


@dataclass(frozen=True)
class SessionConfig:
    """Where versions are kept and how they are analysed.

    ``store`` is the configured store path ("" means the workspace's default store);
    ``analysis``: what a full analysis (a hover, a report) computes, and how versions run.
    """

    store: str = ""
    analysis: AnalysisConfig = field(default_factory=AnalysisConfig)



def build_version_set(
    stored: Sequence[StoredVersion],
    current: str | None,
    *,
    file_key: str,
    language: str,
    qualified_name: str,
    name: str,
    prompt: str | None = None,
    module: str | None = None,
) -> tuple[VersionSet, int | None]:
    """A function's stored versions plus its current code, and the current code's index.

    ``module``: the function's module text, whose own copies of a version's helpers are
    left out of the version (:func:`~codequorum.ingest.version_helpers.without_module_copies`).

    The current code (``None``: leave it out) is matched to a stored version with the same
    content hash, else appended with origin ``current``. ``prompt``: the comment above the
    function where its language keeps examples there (:func:`examples_outside`). A current
    code that is a stored version is still the user's: where its language keeps examples
    in the function (a docstring) it is the set's prompt, so they grade the versions as
    they do when it stands apart.
    """
    versions = [s.to_version() for s in stored]
    if module is not None:
        versions = [dataclasses.replace(v, code=without_module_copies(
            v.code, language, qualified_name, module)) for v in versions]
    current_index: int | None = None
    if current is not None:
        current_hash = content_hash(current)
        for i, s in enumerate(stored):
            if s.content_hash == current_hash or _undecorated_hash(s.code) == current_hash:
                current_index = i
                prompt = prompt or _examples_inside(language, current)
                break
        else:
            versions.append(Version(code=current, origin="current", label="current"))
            current_index = len(versions) - 1
    version_set = VersionSet(
        task_id=f"{file_key}::{qualified_name}",
        versions=versions,
        language=language,
        entry_point=name,
        prompt=prompt,
    )
    return version_set, current_index


def _examples_inside(language: str, current: str) -> str | None:
    """``current`` where ``language`` reads a function's examples from its own code (a
    Python docstring), as the prompt that may grade; None where they live in the comment
    above it (JavaScript's JSDoc: that comment is the prompt) or nothing runs."""
    from codequorum.behaviour.runtimes import runtime_for

    runtime = runtime_for(language)
    return current if runtime is not None and not runtime.comment_examples else None


def examples_outside(language: str, doc: str | None) -> str | None:
    """``doc`` (the comment above a function) where ``language``'s runtime reads examples
    from that comment rather than from the function's own code; else None."""
    from codequorum.behaviour.runtimes import runtime_for

    runtime = runtime_for(language)
    return doc if doc and runtime is not None and runtime.comment_examples else None


_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)


def normalize_version(code: str, language: str, qualified_name: str) -> str:
    """One version as stored: the function (at column 0) and its own helpers, from whatever
    text came in.

    Markdown fences are opened, and when the text defines the function (by qualified name,
    else by its last part) only that definition and what it reaches of the text's own
    definitions are kept, so a version that carries imports or a whole file compares like
    with like.
    """
    text = code.replace("\r\n", "\n")
    try:
        from codequorum.ingest.extract import extract_function

        extracted = extract_function(text, language, qualified_name)
        if extracted.ok and extracted.code:
            return extracted.code.strip("\n") + "\n"
    except Exception:  # fall back to the tolerant search below
        log.debug("extract_function failed", exc_info=True)
    if "```" in text:
        blocks = _FENCE.findall(text)
        short = qualified_name.rsplit(".", 1)[-1]
        chosen = [b for b in blocks if short in b] or blocks
        if chosen:
            text = chosen[0]
    try:
        found = parsing.functions(text, language)  # type: ignore[attr-defined]
    except Exception:  # a version the parser chokes on is kept as it is
        found = []
    short = qualified_name.rsplit(".", 1)[-1]
    match = [f for f in found if f.qualified_name == qualified_name] or [
        f for f in found if f.name == short
    ]
    if match:
        fi = match[0]
        line_start = text.rfind("\n", 0, _char_offset(text, fi.start_byte)) + 1
        head = text[line_start : _char_offset(text, fi.start_byte)]
        indent = head if not head.strip() else ""
        text = dedent_function(str(fi.text), indent)
    return text.strip("\n") + "\n"


def _char_offset(text: str, byte_offset: int) -> int:
    if text.isascii():
        return byte_offset
    return len(text.encode("utf-8", errors="replace")[:byte_offset].decode("utf-8", "ignore"))


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8", errors="replace"))
        h.update(b"\0")
    return h.hexdigest()


class _LRU(OrderedDict[K, T]):
    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def put(self, key: K, value: T) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)

    def peek(self, key: K) -> T | None:
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value


@dataclass(frozen=True)
class AnalysisKey:
    """What one function's static analysis depends on, as one hashable value: the file,
    the language, the function, its stored versions (by content hash), the current code
    (None when left out) and the analysis options. The other fields carry the inputs and
    take no part in equality."""

    file_key: str
    language: str
    qualified_name: str
    versions: tuple[str, ...]
    current_hash: str | None
    options: AnalysisConfig
    name: str = field(compare=False)
    stored: tuple[StoredVersion, ...] = field(compare=False, repr=False)
    current: str | None = field(compare=False, repr=False)
    code_hash: str = field(compare=False, repr=False)
    #: The comment above the function where the language keeps its examples there.
    prompt: str | None = None
    #: The function's module as the front end holds it (its text, file and the function's
    #: kind): where a remembered run is looked up (None: not looked up).
    document: Document | None = field(default=None, compare=False, repr=False)

    def digest(self) -> str:
        """A stable text of the key (result ids, logs)."""
        return _digest(
            self.file_key,
            self.language,
            self.qualified_name,
            *self.versions,
            self.current_hash or "-",
            repr(self.options),
            *((self.prompt,) if self.prompt else ()),
        )

    def dynamic_digest(self) -> str:
        """The key of a dynamic report of these versions and this current code."""
        return _digest("dyn", *self.versions, self.code_hash,
                       *((self.prompt,) if self.prompt else ()))


@dataclass(frozen=True)
class Document:
    """A function's module as a front end holds it: its text, its file (None for an
    unsaved one) and where the function sits (``kind`` as the parser says it)."""

    text: str
    path: Path | None
    kind: str = "function"


@dataclass(frozen=True)
class Preparation:
    """One function ready to be analysed, the same for every front end (``check``, the
    editor, the agents' tools): its analysis (stored versions, current code, options), the
    current code it was made with, and the module its versions run in (None when its
    language does not run, or no run was asked for)."""

    analysis: FunctionAnalysis
    current: str
    name: str
    module: ModuleContext | None
    doc: str | None = None


#: What ``score`` says of a set whose versions ran without their module.
RAN_WITHOUT_MODULE = "ran without its module"


def workspace_text(workspace: Path, key: str) -> str:
    """The text of the file a store key names: a regular UTF-8 file inside ``workspace``,
    at most :data:`~codequorum.core.limits.MAX_DOCUMENT_BYTES` long, that passes the
    workspace's one rule on the key and where its links lead
    (:func:`~codequorum.core.safe_paths.read_workspace_file`: nothing hidden or
    secret-looking). Raises :class:`UserError` saying why not (a key from a repository
    may name anything)."""
    from codequorum.core.limits import MAX_DOCUMENT_BYTES
    from codequorum.core.safe_paths import (
        RefusedFile,
        read_workspace_file,
        real_path,
        workspace_refusal,
    )
    from codequorum.core.safe_text import safe_text

    shown = safe_text(key, 200)
    if (key.startswith("file:") or ":" in key.split("/", 1)[0] or "\0" in key
            or Path(key).is_absolute()):
        raise UserError(f"{shown} is not a file of the workspace")
    root = real_path(workspace)
    if not real_path(workspace / key).is_relative_to(root):
        raise UserError(f"{shown} is outside the workspace")
    why = workspace_refusal(Path(key))
    try:
        if why is not None:
            raise RefusedFile(why)
        _real, data = read_workspace_file(root, root / key, MAX_DOCUMENT_BYTES)
    except RefusedFile as exc:
        raise UserError(f"{shown} is not read: {safe_text(exc)}") from None
    except OSError:
        raise UserError(f"{shown}: no such file in {safe_text(workspace, 200)}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"{shown}: not UTF-8 text") from None


def located_module(workspace: Path, location: FunctionLocation, language: str
                   ) -> tuple[ModuleContext, str | None]:
    """The module a set's function lives in, rebuilt from its ``location`` in
    ``workspace`` as :meth:`Session.prepare` builds it for ``check`` and the editor, and
    the comment above the function where its language keeps examples there (the prompt
    ``check`` gives the set: :func:`examples_outside`). Raises :class:`UserError` saying
    why it cannot be (no such file or function)."""
    from codequorum.behaviour.runtimes import runtime_for

    text = workspace_text(workspace, location.file)
    info = parsing.function_by_name(text, language, location.qualified_name)
    runtime = runtime_for(language)
    if info is None or runtime is None:
        raise UserError(f"no function {location.qualified_name!r} in {location.file}")
    view = runtime.module_view(text, workspace / location.file, workspace)
    context: ModuleContext = view.context(str(info.qualified_name),
                                          str(getattr(info, "kind", "function")))
    return context, examples_outside(language, info.docstring)


def not_run(analysis: FunctionAnalysis, reason: str) -> FunctionAnalysis:
    """``analysis`` with the ``not-run`` finding saying why its versions ran on nothing
    (no sandbox here, say): its shape's figures stand, and no front end shows them as if
    the behaviour had been checked."""
    from codequorum.judge.dynamic_rules import not_run_verdict

    verdict = not_run_verdict(reason)
    assert verdict is not None
    report = dataclasses.replace(analysis.report, verdicts=[verdict, *analysis.report.verdicts])
    return dataclasses.replace(analysis, report=report)


def merge_dynamic(
    report: StabilityReport, dynamic: DynamicLike, options: AnalysisConfig,
    codes: Sequence[str],
) -> StabilityReport:
    """A copy of a static ``report`` of the versions ``codes`` with a dynamic report
    merged in: what ``analyze(..., dynamic=dynamic)`` gives, without computing the static
    part again."""
    from codequorum.pipeline.analyze import _merge_dynamic, _recommend

    merged = dataclasses.replace(
        report,
        summary=dict(report.summary),
        verdicts=list(report.verdicts),
        recommended=None,
        recommended_by=None,
        recommendation=None,
        risk=None,
        risk_level=None,
        risk_range=None,
        trust=None,
        stability_percentile=None,
    )
    _merge_dynamic(merged, dynamic)
    if merged.status == "ok" and merged.typicality:  # else nothing to keep either way
        _recommend(merged, dynamic, options, codes)
    return merged


class Session:
    """Samples in, analyses out. Blocking: callers that must not block run it on threads."""

    def __init__(self, notify: Notify, config: SessionConfig | None = None) -> None:
        self.config = config or SessionConfig()
        self.root: str | None = None
        self._notify = notify
        self._lock = threading.RLock()
        self._store: VersionStore | None = None
        self._store_path: Path | None = None
        self._store_failed: str | None = None
        self._versions: dict[tuple[str, str], tuple[StoredVersion, ...]] = {}
        self._with_versions: dict[str, frozenset[str]] = {}
        self._static: _LRU[AnalysisKey, FunctionAnalysis] = _LRU(CACHE_LIMIT)
        self._recent: dict[tuple[str, str], list[AnalysisKey]] = {}
        self._dynamic: _LRU[str, tuple[int, Any]] = _LRU(CACHE_LIMIT)  # (number, report)
        self._dynamic_count = 0
        self._merged: _LRU[str, FunctionAnalysis] = _LRU(CACHE_LIMIT)

    def close(self) -> None:
        """Close the store."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def reconfigure(self, config: SessionConfig, root: str | None = None) -> None:
        """New options (and workspace root); the store is reopened if its path moved."""
        with self._lock:
            self.config = config
            if root is not None:
                self.root = root
            if self._store_path is not None and self._store_path != self.store_path():
                if self._store is not None:
                    self._store.close()
                self._store = None
                self._store_path = None
                self._store_failed = None
                self._versions.clear()
                self._with_versions.clear()

    def store_path(self) -> Path:
        """Where the store lives under the current options."""
        return workspace.store_path(self.config.store, self.root)

    def file_key(self, path: Path) -> str:
        """How the store names ``path`` in this session's workspace."""
        return workspace.store_key(path, Path(self.root) if self.root else Path.cwd())

    def store(self) -> VersionStore | None:
        """The open store (opened on first use; None when it cannot be opened). Blocking."""
        with self._lock:
            if self._store is not None:
                return self._store
            if self._store_failed is not None:
                return None
            path = self.store_path()
            try:
                store = VersionStore.open(path, roots=[Path(self.root or Path.cwd())])
            except Exception as exc:
                self._store_failed = str(exc)
                self._store_path = path
                self._notify("error", f"codequorum: cannot open the version store: {exc}")
                return None
            for warning in store.warnings:
                self._notify("warning", f"codequorum: {warning}")
            self._store = store
            self._store_path = path
            return store

    # ------------------------------------------------------------------ versions (blocking)

    def versions_sync(self, file_key: str, qualified_name: str) -> tuple[StoredVersion, ...]:
        """Stored versions of one function (cached until this engine writes)."""
        key = (file_key, qualified_name)
        with self._lock:
            cached = self._versions.get(key)
        if cached is not None:
            return cached
        store = self.store()
        rows = tuple(store.versions_for(file_key, qualified_name)) if store else ()
        with self._lock:
            self._versions[key] = rows
        return rows

    def functions_with_versions_sync(self, file_key: str) -> frozenset[str]:
        """Qualified names with at least one stored version in this file."""
        with self._lock:
            cached = self._with_versions.get(file_key)
        if cached is not None:
            return cached
        store = self.store()
        names = frozenset(store.functions_with_versions(file_key)) if store else frozenset()
        with self._lock:
            self._with_versions[file_key] = names
        return names

    def forget(self, file_key: str | None = None) -> None:
        """Drop cached version lists (all, or one file's) so the next read hits the store."""
        with self._lock:
            if file_key is None:
                self._versions.clear()
                self._with_versions.clear()
                return
            self._with_versions.pop(file_key, None)
            for key in [k for k in self._versions if k[0] == file_key]:
                del self._versions[key]

    def add_sync(
        self,
        file_key: str,
        language: str,
        qualified_name: str,
        versions: Sequence[Version],
        prompt_hash: str | None = None,
    ) -> list[int]:
        """Store versions (normalised to the bare function). Returns their row ids.

        Versions over the size bounds of :mod:`codequorum.core.limits` are refused, all of them,
        with :class:`~codequorum.core.limits.InputLimitError`, before anything reads them."""
        check_call_sizes([s.code for s in versions])
        store = self.store()
        if store is None:
            raise RuntimeError(self._store_failed or "the version store is not available")
        clean = [
            dataclasses.replace(s, code=normalize_version(s.code, language, qualified_name))
            for s in versions
            if s.code.strip()
        ]
        ids = store.add(file_key, language, qualified_name, clean, prompt_hash=prompt_hash)
        self.forget(file_key)
        return ids

    def clear_sync(self, file_key: str, qualified_name: str | None) -> int:
        """Delete stored versions of one function (or the whole file)."""
        store = self.store()
        if store is None:
            return 0
        count = store.clear(file_key, qualified_name)
        self.forget(file_key)
        return count

    def rename_sync(self, file_key: str, old: str, new: str) -> int:
        """Move a function's versions to its new qualified name."""
        store = self.store()
        if store is None:
            return 0
        count = store.rename_function(file_key, old, new)
        self.forget(file_key)
        return count

    # ------------------------------------------------------------------ analysis

    def options(self, full: bool = True) -> AnalysisConfig:
        """The analysis options under this session's configuration. ``full=False``
        (diagnostics, lenses) leaves out the chosen metrics (TSED, the token figures),
        which no verdict reads."""
        chosen = self.config.analysis
        return dataclasses.replace(chosen, metrics=chosen.metrics if full else ())

    def function_key(
        self,
        file_key: str,
        language: str,
        qualified_name: str,
        name: str,
        current: str,
        full: bool = True,
        doc: str | None = None,
        document: Document | None = None,
    ) -> AnalysisKey | None:
        """The cache key of one function's analysis; None when it has no stored versions.
        Reads the store (cached), computes nothing. ``current`` is the function's code now
        (at column 0); ``full=False`` (diagnostics, lenses) leaves out TSED and the token
        metrics, and a cached full analysis serves it too. ``doc``: the comment above the
        function (its examples count where the language keeps them there); ``document``: the
        module, where a remembered run of these versions is looked up when the analysis is
        computed."""
        stored = self.versions_sync(file_key, qualified_name)
        if not stored:
            return None
        code = current.strip("\n") + "\n"
        code_hash = content_hash(code)
        include = self.config.analysis.include_current
        return AnalysisKey(
            file_key=file_key,
            language=language,
            qualified_name=qualified_name,
            versions=tuple(s.content_hash for s in stored),
            current_hash=code_hash if include else None,
            options=self.options(full),
            name=name,
            stored=stored,
            current=code if include else None,
            code_hash=code_hash,
            prompt=examples_outside(language, doc),
            document=document,
        )

    def cached(self, key: AnalysisKey) -> FunctionAnalysis | None:
        """The analysis for ``key`` if it is ready (a full analysis serves a light key), with
        the dynamic report merged in; None when it still has to be computed."""
        with self._lock:
            static = self._static.peek(key)
            if static is None and key.options != self.options(True):
                static = self._static.peek(dataclasses.replace(key, options=self.options(True)))
        if static is None:
            return None
        return self._with_dynamic(static, key.options)

    def compute(self, key: AnalysisKey) -> FunctionAnalysis:
        """The analysis for ``key``: from the cache, else computed (blocking) and cached."""
        hit = self.cached(key)
        if hit is not None:
            return hit
        version_set, current_index = build_version_set(
            key.stored,
            key.current,
            file_key=key.file_key,
            language=key.language,
            qualified_name=key.qualified_name,
            name=key.name,
            prompt=key.prompt,
            module=key.document.text if key.document is not None else None,
        )
        try:
            report = analyze(version_set, key.options, current_index=current_index)
        except UserError as exc:  # too many or too large versions: the function says why
            log.info("%s not analysed: %s", key.qualified_name, exc)
            report = refused(version_set, str(exc), key.options, current_index)
        static = FunctionAnalysis(
            file_key=key.file_key,
            qualified_name=key.qualified_name,
            language=key.language,
            stored=key.stored,
            version_set=version_set,
            current_index=current_index,
            report=report,
            dynamic=None,
            key=key.digest(),
            dyn_key=key.dynamic_digest(),
            most_different=_most_different(report, current_index),
            fastest=None,
        )
        if key.document is not None:  # before it is cached: no reader sees it without its run
            self.recall_run(static, key.document)
        with self._lock:
            self._static.put(key, static)
            recent = self._recent.setdefault((key.file_key, key.qualified_name), [])
            if key in recent:
                recent.remove(key)
            recent.append(key)
            while len(recent) > VARIANTS_PER_FUNCTION:
                self._static.pop(recent.pop(0), None)
            if len(self._recent) > CACHE_LIMIT:
                self._recent.pop(next(iter(self._recent)))
        return self._with_dynamic(static, key.options)

    def _with_dynamic(self, static: FunctionAnalysis, options: AnalysisConfig) -> FunctionAnalysis:
        """``static`` with the dynamic report of its versions merged in, when there is one
        (the merged analysis is cached beside it; the static one is never recomputed)."""
        with self._lock:
            found = self._dynamic.peek(static.dyn_key)
            if found is None:
                return static
            number, dynamic = found
            merged = self._merged.peek(static.key)
        if merged is not None and merged.dynamic is dynamic:
            return merged
        report = merge_dynamic(static.report, dynamic, options, static.version_set.codes)
        merged = dataclasses.replace(
            static,
            report=report,
            dynamic=dynamic,
            key=_digest(static.key, "dynamic", str(number)),
            fastest=_fastest(dynamic),
        )
        with self._lock:
            self._merged.put(static.key, merged)
        return merged

    def analysed(self, key: AnalysisKey | None) -> FunctionAnalysis | None:
        """The (cached) analysis a :meth:`function_key` names; None when it names none
        (the function has no stored versions)."""
        return None if key is None else self.compute(key)

    # ------------------------------------------------------------------ one preparation

    def prepare(self, text: str, path: Path | None, language: str, info: Any, *,
                module: bool = False, full: bool = True,
                file_key: str | None = None) -> Preparation | None:
        """One function of the module ``text`` (the file ``path``) prepared for its
        analysis as every front end prepares it: its stored versions under this session's
        store key of ``path``, its current code, the session's options, a remembered run of
        the same versions in the same module, and with ``module`` the module its versions
        run in (:mod:`codequorum.ingest.module_view`; only for a language that runs). None
        when it has no stored versions. ``info`` is the parser's
        :class:`~codequorum.core.parsing.FunctionInfo`; ``file_key``: how the store names
        the file when the front end knows it (the editor's URI), else from ``path``.
        Blocking."""
        from codequorum.behaviour.runtimes import runtime_for

        qualified_name, name = str(info.qualified_name), str(info.name)
        kind = str(getattr(info, "kind", "function"))
        if file_key is None:
            if path is None:
                raise ValueError("a function without a file needs its store key")
            file_key = self.file_key(path)
        current = current_code(text, info)
        document = Document(text, path, kind)
        doc = getattr(info, "docstring", None)
        analysis = self.analysed(self.function_key(file_key, language, qualified_name, name,
                                                   current, full, doc, document))
        if analysis is None:
            return None
        context = None
        if module and runtime_for(language) is not None:
            context = self.module_context(text, path, qualified_name, kind, language)
        return Preparation(analysis, current, name, context, doc)

    def shape_only(self, prepared: Preparation) -> FunctionAnalysis:
        """The prepared function's analysis of shape alone, no run merged in (made now or
        remembered): what a front end shows where its versions could not run again."""
        a = prepared.analysis
        key = self.function_key(a.file_key, a.language, a.qualified_name, prepared.name,
                                prepared.current, True, prepared.doc)
        if key is None:
            return a
        self.compute(key)
        with self._lock:
            static = self._static.peek(key)
        return static or a

    def run_prepared(
        self,
        prepared: Preparation,
        report_progress: Callable[[str, int | None], None],
        cancel: threading.Event,
        input_proposer: Proposer | None = None,
    ) -> FunctionAnalysis:
        """Run a prepared function's versions in its module (:meth:`run_dynamic_sync`) and
        read its analysis again with the run merged in (the same analysis when cancelled)."""
        analysis = prepared.analysis
        self.run_dynamic_sync(analysis, report_progress, cancel, input_proposer,
                              prepared.module)
        again = self.analysed(self.function_key(
            analysis.file_key, analysis.language, analysis.qualified_name, prepared.name,
            prepared.current, doc=prepared.doc))
        return again or analysis

    # ------------------------------------------------------------------ dynamic

    def dynamic_key(self, analysis: FunctionAnalysis) -> str:
        """Cache key of a function's dynamic report (its versions and current code)."""
        return analysis.dyn_key

    def module_view(self, text: str, path: Path | None, language: str = "python"
                    ) -> ModuleView | JsModuleView:
        """The module held in ``text`` (the file ``path``, None when it has none) as the
        versions of its functions see it in the sandbox: the view of this session's
        workspace, as the language's runtime builds it (reads files, runs nothing)."""
        from codequorum.behaviour.runtimes import runtime_for

        runtime = runtime_for(language)
        if runtime is None:
            raise ValueError(f"no module view for {language}: its versions do not run")
        root = Path(self.root) if self.root else None
        view: ModuleView | JsModuleView = runtime.module_view(text, path, root)
        return view

    def module_context(self, text: str, path: Path | None, qualified_name: str,
                       kind: str = "function", language: str = "python") -> ModuleContext:
        """:meth:`module_view` for one function (``kind`` as the parser says it)."""
        return self.module_view(text, path, language).context(qualified_name, kind)

    def run_dynamic_sync(
        self,
        analysis: FunctionAnalysis,
        report_progress: Callable[[str, int | None], None],
        cancel: threading.Event,
        input_proposer: Proposer | None = None,
        module: ModuleContext | None = None,
    ) -> Any:
        """Run the versions in the sandbox (child processes), in the function's ``module``
        when given (:meth:`module_context`), and cache the result; ``input_proposer`` is
        asked for call inputs when the function gives nothing else to run.

        The report is kept for the versions and the current code: an edit elsewhere in the
        module does not drop it (a new run measures it)."""
        from codequorum.behaviour import dynamic_analysis

        admit(analysis.version_set)  # nothing over a bound is compiled or run
        options = dynamic_analysis.DynamicOptions(
            timeout_seconds=self.config.analysis.timeout, sandbox=self.config.analysis.sandbox,
            input_proposer=input_proposer,
        )

        def progress(*args: Any, **kwargs: Any) -> None:
            report_progress(_progress_text(args, kwargs), _progress_pct(args, kwargs))

        version_set = dataclasses.replace(analysis.version_set, module=module)
        result = dynamic_analysis.run_dynamic(version_set, options, progress=progress,
                                              cancel=cancel)
        if not cancel.is_set():
            self.put_dynamic(analysis, result)
            self._remember(analysis, module, result, input_proposer is not None)
        return result

    def run_options(self, proposed: bool, examples: str | None = None) -> str:
        """The options that change a run, as the text its remembered key is made of: the
        sandbox's level as it runs here (``auto`` is the level it picks), so a run is
        found whichever front end asked for it by which name; whether the model proposed
        inputs; the examples read from beside the function (``examples``)."""
        c = self.config.analysis
        seen = _digest(examples) if examples else "-"
        return (f"timeout={float(c.timeout)!r};sandbox={_level(c.sandbox)};"
                f"proposed={proposed};examples={seen}")

    def _remember(self, analysis: FunctionAnalysis, module: ModuleContext | None,
                  report: Any, proposed: bool) -> None:
        """Keep a run's report in the store beside its versions, under the key of its
        versions, module and options (:mod:`codequorum.behaviour.run_record`)."""
        from codequorum.behaviour import run_record

        store = self.store()
        seal_key = run_seal.seal_key()
        if store is None or seal_key is None:
            return
        key = run_record.run_key(analysis.version_set.codes, module,
                                 self.run_options(proposed, analysis.version_set.prompt))
        record = run_record.encode(report, key, seal_key)
        try:
            versions = run_record.versions_key(analysis.version_set.codes)
            if record is None or not store.put_run(analysis.file_key, analysis.qualified_name,
                                                   key, record, versions):
                log.info("the run of %s is too large to remember", analysis.qualified_name)
        except Exception as exc:  # boundary: the run stands; only its memory is lost
            log.warning("the run of %s was not remembered: %s", analysis.qualified_name, exc)

    def recall_run(self, analysis: FunctionAnalysis, document: Document) -> bool:
        """Take a remembered run of ``analysis``'s versions in ``document``'s module (the
        same versions, module text and options) when no run of them is held yet: only a
        run this user's codequorum made and sealed (:mod:`codequorum.core.run_seal`), so a
        store that came with a repository, approved or not, shows no run nobody here made.
        A record that does not validate or match its key is ignored. True when one was
        taken."""
        from codequorum.behaviour import run_record
        from codequorum.behaviour.runtimes import runtime_for

        if self.has_dynamic(analysis) or runtime_for(analysis.language) is None:
            return False
        store = self.store()
        seal_key = run_seal.seal_key(create=False)
        if store is None or store.closed or seal_key is None:
            return False
        try:
            codes = analysis.version_set.codes
            if store is None or not store.has_runs(analysis.file_key, analysis.qualified_name,
                                                   run_record.versions_key(codes)):
                return False  # the module view is read only for a run of these versions
            module = self.module_context(document.text, document.path,
                                         analysis.qualified_name, document.kind,
                                         analysis.language)
            for proposed in (False, True):
                key = run_record.run_key(codes, module,
                                         self.run_options(proposed, analysis.version_set.prompt))
                record = store.run_record(analysis.file_key, analysis.qualified_name, key)
                report = run_record.decode(record, key, len(codes), seal_key)
                if report is not None:
                    self.put_dynamic(analysis, report)
                    return True
        except Exception as exc:  # boundary: the analysis stands without the remembered run
            if store.closed:  # shutting down: nobody reads the analysis any more
                log.debug("no remembered run of %s: the store closed", analysis.qualified_name)
            else:
                log.warning("no remembered run of %s: %s", analysis.qualified_name, exc)
        return False

    def put_dynamic(self, analysis: FunctionAnalysis, report: Any) -> None:
        """Keep a dynamic report of ``analysis``'s versions: later reads merge it in."""
        with self._lock:
            self._dynamic_count += 1
            self._dynamic.put(self.dynamic_key(analysis), (self._dynamic_count, report))

    def has_dynamic(self, analysis: FunctionAnalysis) -> bool:
        """True when a dynamic report exists for these versions."""
        with self._lock:
            return self._dynamic.peek(self.dynamic_key(analysis)) is not None


def _level(sandbox: str) -> str:
    """The sandbox level that runs for ``sandbox`` (``auto`` probed, as a run in a module
    probes it; cached after the first probe)."""
    from codequorum.behaviour.sandbox import isolation

    if sandbox != isolation.AUTO:
        return sandbox
    try:
        return isolation.choose(None, sandbox, True)[0]
    except Exception as exc:  # boundary: a key that finds no run, never a wrong one
        log.info("the sandbox level was not probed: %s", exc)
        return sandbox


def _most_different(report: StabilityReport, current_index: int | None) -> int | None:
    """The version least like the current code (or the consensus), from the JSD matrix."""
    matrix = report.matrices.get("jsd_struct")
    anchor = current_index if current_index is not None else report.medoid
    if matrix is None or anchor is None or anchor not in report.indices:
        return None
    row = report.indices.index(anchor)
    best: int | None = None
    best_value = 2.0
    for col, index in enumerate(report.indices):
        if col == row:
            continue
        value = (float(matrix[row][col]) + float(matrix[col][row])) / 2
        if value < best_value:
            best, best_value = index, value
    return best


def _fastest(dynamic: Any | None) -> int | None:
    if dynamic is None:
        return None
    value = getattr(dynamic, "fastest", None)
    return int(value) if isinstance(value, int) else None


def _progress_text(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    if "message" in kwargs:
        return str(kwargs["message"])
    texts = [a for a in args if isinstance(a, str)]
    if texts:
        return texts[0]
    numbers = [a for a in args if isinstance(a, int | float) and not isinstance(a, bool)]
    if len(numbers) >= 2:
        return f"{int(numbers[0])} of {int(numbers[1])}"
    return "running"


def _progress_pct(args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    numbers = [a for a in args if isinstance(a, int | float) and not isinstance(a, bool)]
    if len(numbers) >= 2 and numbers[1]:
        return int(100 * numbers[0] / numbers[1])
    if len(numbers) == 1 and 0 <= numbers[0] <= 1:
        return int(100 * numbers[0])
    return None
