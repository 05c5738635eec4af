"""Local stand-in for `tree_sitter_language_pack` used only by the benchmarks.

The published reference packages (code-sce, tsed) import `get_parser` from
tree-sitter-language-pack, whose 1.x releases download grammars at run time. This module
returns the pinned grammar packages instead, so the comparison uses the same parsers.
"""

from __future__ import annotations

from typing import Any

import tree_sitter

from codequorum.core.parsing import get_language as _get_language

SupportedLanguage = str


def get_language(name: str) -> tree_sitter.Language:
    """The pinned tree-sitter language for ``name``."""
    return _get_language(name)


def get_parser(name: str, *args: Any, **kwargs: Any) -> tree_sitter.Parser:
    """A fresh parser for ``name`` built from the pinned grammar."""
    return tree_sitter.Parser(_get_language(name))
