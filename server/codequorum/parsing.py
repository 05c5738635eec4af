"""Tree-sitter languages and parsers, and the functions found in a piece of code.

Grammars come from the pinned per-language packages (``tree_sitter_python`` and so on),
so results never depend on grammars fetched at run time. Parsers are cached per thread
because a ``tree_sitter.Parser`` must not be shared between threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache
from pathlib import PurePath

import tree_sitter

from codequorum.errors import UnknownLanguageError

__all__ = [
    "LANGUAGES",
    "get_language",
    "get_parser",
    "language_from_path",
    "normalize_language",
    "parse",
    "to_bytes",
]


def _loader(module: str, attr: str = "language") -> Callable[[], object]:
    def load() -> object:
        mod = __import__(module)
        return getattr(mod, attr)()

    return load


#: Canonical language name -> loader of the grammar's language pointer.
_GRAMMARS: dict[str, Callable[[], object]] = {
    "python": _loader("tree_sitter_python"),
    "sql": _loader("tree_sitter_sql"),
    "javascript": _loader("tree_sitter_javascript"),
    "typescript": _loader("tree_sitter_typescript", "language_typescript"),
    "tsx": _loader("tree_sitter_typescript", "language_tsx"),
    "java": _loader("tree_sitter_java"),
    "go": _loader("tree_sitter_go"),
    "rust": _loader("tree_sitter_rust"),
    "c": _loader("tree_sitter_c"),
    "cpp": _loader("tree_sitter_cpp"),
}

#: The canonical language names codequorum knows.
LANGUAGES: tuple[str, ...] = tuple(_GRAMMARS)

_ALIASES: dict[str, str] = {
    "py": "python",
    "python3": "python",
    "py3": "python",
    "js": "javascript",
    "jsx": "javascript",
    "node": "javascript",
    "ecmascript": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "ts": "typescript",
    "mts": "typescript",
    "cts": "typescript",
    "typescriptreact": "tsx",
    "javascriptreact": "javascript",
    "c++": "cpp",
    "cxx": "cpp",
    "cc": "cpp",
    "hpp": "cpp",
    "golang": "go",
    "rs": "rust",
    "h": "c",
    "postgresql": "sql",
    "postgres": "sql",
    "mysql": "sql",
    "sqlite": "sql",
}

_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".sql": "sql",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".java": "java",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
}


def normalize_language(name: str) -> str:
    """The canonical name for a language name or alias (``py`` -> ``python``).

    Case and surrounding blanks are ignored. Raises ``UnknownLanguageError`` for a name
    codequorum does not know.
    """
    key = str(name).strip().lower()
    if key in _GRAMMARS:
        return key
    if key in _ALIASES:
        return _ALIASES[key]
    raise UnknownLanguageError(
        f"unknown language {name!r}; known: {', '.join(LANGUAGES)} "
        f"(aliases: {', '.join(sorted(_ALIASES))})"
    )


def language_from_path(path: str | PurePath) -> str:
    """The language of a file, from its extension (``a/b.rs`` -> ``rust``).

    Raises ``UnknownLanguageError`` for an extension codequorum does not know.
    """
    suffix = PurePath(str(path)).suffix.lower()
    lang = _EXTENSIONS.get(suffix)
    if lang is None:
        raise UnknownLanguageError(
            f"no language for file {str(path)!r} (extension {suffix or 'none'!r}); "
            f"known extensions: {' '.join(sorted(_EXTENSIONS))}"
        )
    return lang


@cache
def _language(canonical: str) -> tree_sitter.Language:
    return tree_sitter.Language(_GRAMMARS[canonical]())


def get_language(name: str) -> tree_sitter.Language:
    """The pinned ``tree_sitter.Language`` for a language name or alias."""
    return _language(normalize_language(name))


_local = threading.local()


def get_parser(name: str) -> tree_sitter.Parser:
    """A parser for ``name``, cached per thread (parsers are not thread-safe)."""
    canonical = normalize_language(name)
    cache_: dict[str, tree_sitter.Parser] | None = getattr(_local, "parsers", None)
    if cache_ is None:
        cache_ = {}
        _local.parsers = cache_
    parser = cache_.get(canonical)
    if parser is None:
        parser = tree_sitter.Parser(_language(canonical))
        cache_[canonical] = parser
    return parser


def to_bytes(code: str | bytes) -> bytes:
    """UTF-8 bytes of ``code``; lone surrogates in a ``str`` become U+FFFD, never an error."""
    if isinstance(code, bytes):
        return code
    try:
        return code.encode("utf-8")
    except UnicodeEncodeError:
        return code.encode("utf-8", errors="replace")


def parse(code: str | bytes, lang: str) -> tree_sitter.Tree:
    """Parse ``code`` (text, or bytes taken as UTF-8 as they are) with the grammar for ``lang``.

    Never raises for bad code: syntax errors become ERROR / MISSING nodes in the tree.
    """
    return get_parser(lang).parse(to_bytes(code))
