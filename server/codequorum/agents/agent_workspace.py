"""What every agent tool works in: the workspace root, its store, the analysis configuration
and the user's endpoint, fixed when ``codequorum mcp`` starts; :func:`from_tool_args`, the
configuration one tool call analyses with.

One :class:`AgentWorkspace` serves the whole connection; its :class:`~codequorum.pipeline.session.
Session` keeps the analyses cached between calls, as the editor's does.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from codequorum.agents.paths import SourceFile, read_source, store_file
from codequorum.agents.schema import CompareArgs
from codequorum.core import parsing
from codequorum.core.errors import UserError
from codequorum.core.parsing import FunctionInfo
from codequorum.core.safe_text import safe_text
from codequorum.core.words import names_listed
from codequorum.generate.endpoint import ProviderConfig
from codequorum.generate.prompting import DEFAULT_CONTEXT_LINES
from codequorum.ingest.extract import unparsed_hint
from codequorum.metrics.registry import TEXTUAL
from codequorum.pipeline.config import AnalysisConfig
from codequorum.pipeline.session import Session, SessionConfig

log = logging.getLogger(__name__)

#: ``progress(done, total, message)``: called from the thread doing the work.
Progress = Callable[[float, float | None, str], None]


def no_progress(_done: float, _total: float | None, _message: str) -> None:
    """A progress callback that reports nothing."""


class Cancelled(Exception):
    """The client cancelled the call; nothing is answered."""


@dataclass(frozen=True)
class AgentOptions:
    """How functions are analysed (the optional metrics of a full analysis, the depth, the
    sandbox's timeout) and where new versions are asked for."""

    analysis: AnalysisConfig = field(default_factory=AnalysisConfig)
    provider: ProviderConfig = field(default_factory=ProviderConfig)
    context_lines: int = DEFAULT_CONTEXT_LINES


def from_tool_args(options: AgentOptions, args: object) -> AnalysisConfig:
    """The analysis one tool call runs with: the server's configuration; for the versions
    an agent holds (``compare_versions``), ``codequorum score``'s analysis of one set, with
    the server's depth and metrics but the textual figures left out, as ``score`` leaves
    them out unless asked, and no matrices kept."""
    if isinstance(args, CompareArgs):
        metrics = tuple(m for m in options.analysis.metrics if m != TEXTUAL)
        return dataclasses.replace(options.analysis, metrics=metrics, keep_matrices=False)
    return options.analysis


@dataclass(frozen=True)
class FunctionTarget:
    """A function an agent named: its file, language, definition and store key."""

    source: SourceFile
    language: str
    info: FunctionInfo
    key: str


class AgentWorkspace:
    """The workspace root, its session on the store and the options."""

    def __init__(self, root: Path, options: AgentOptions) -> None:
        self.root = root.resolve()
        self.options = options
        self._lock = threading.Lock()
        self._session: Session | None = None
        self.problems: list[str] = []

    def store_path(self) -> Path:
        """The workspace's store (refused when it is a link out, see :func:`store_file`)."""
        return store_file(self.root)

    def session(self) -> Session:
        """The session on the workspace's store (made on first use; the store itself is
        opened only when read or written)."""
        with self._lock:
            if self._session is None:
                self._session = Session(self._notify, SessionConfig(
                    store=str(self.store_path()), analysis=self.options.analysis))
                self._session.reconfigure(self._session.config, root=str(self.root))
            return self._session

    def _notify(self, level: str, message: str) -> None:
        """What the session reports: logged, and kept for the next answer when it is a
        problem."""
        text = message.removeprefix("codequorum: ")
        log.log(logging.ERROR if level == "error" else logging.INFO, "%s", text)
        if level in ("error", "warning"):
            self.problems.append(text)

    def close(self) -> None:
        """Close the store."""
        with self._lock:
            if self._session is not None:
                self._session.close()
                self._session = None

    def function(self, path: str, name: str, language: str | None) -> FunctionTarget:
        """The function ``name`` of the file ``path`` inside the workspace. Raises
        :class:`UserError` (unknown language, no such function) or
        :class:`~codequorum.agents.paths.PathRefused`."""
        source = read_source(self.root, path)
        lang = (parsing.normalize_language(language) if language
                else parsing.language_from_path(source.path))
        info = parsing.function_by_name(source.text, lang, name)
        if info is None:
            known = [str(f.qualified_name) for f in parsing.functions(source.text, lang)]
            hint = (f"; functions in the file: {names_listed([safe_text(k, 80) for k in known])}"
                    if known else "; the file defines no function")
            hint += safe_text(unparsed_hint(source.text, lang), 300)
            raise UserError(f"{safe_text(path, 200)}: no function `{safe_text(name, 200)}`{hint}")
        key = self.session().file_key(source.path)
        return FunctionTarget(source, lang, info, key)
