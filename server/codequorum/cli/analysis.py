"""The command line's adapter to the engine: a command's analysis choices, read from its
parsed arguments at its door into one :class:`~codequorum.pipeline.config.AnalysisConfig`.

Which arguments count is read from the declarations: every option of the command whose
attribute names a field of the configuration sets that field (``--max-depth``,
``--cluster-threshold``, ``--timeout``, ``--sandbox``, ``--risk-level``, ...), so an option
declared with the name of a new field reaches the engine with no code here. The choice of
metrics (``--metrics`` and its older spellings), the matrices a format needs and the
interpreter behind ``--interpreter`` are read apart.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable

from codequorum.core.errors import UserError
from codequorum.metrics.registry import DEFAULT_METRICS
from codequorum.options.declarations import CHECK, DEMO, MCP, SCORE, chosen_metrics, options_for
from codequorum.pipeline.config import DEFAULTS, FIELDS, AnalysisConfig

#: The commands that analyse (``sample``'s ``--timeout`` is its requests', not the sandbox's).
ANALYSED: frozenset[str] = frozenset({CHECK, DEMO, MCP, SCORE})
#: The fields read apart from their option (see :func:`from_request`).
APART: frozenset[str] = frozenset({"metrics", "keep_matrices", "interpreter"})


def declared_fields(command: str) -> list[str]:
    """The configuration's fields ``command`` has an option of the same name for (none for
    a command that does not analyse)."""
    if command not in ANALYSED:
        return []
    return sorted({o.attribute for o in options_for(command)} & FIELDS - APART)


def from_request(args: argparse.Namespace, command: str, *, needs_matrices: bool = False,
                 interpreter: Callable[[str], str] | None = None) -> AnalysisConfig:
    """The analysis configuration ``command``'s arguments ``args`` ask for: the declared
    fields, the metrics (``score`` and ``demo`` start from the registry's defaults, the
    others from the editor's), the matrices kept with ``--matrices`` or when the format
    ``needs_matrices`` (a command without ``--matrices`` keeps them, as the editor does),
    and the executable ``interpreter`` finds for ``--interpreter``."""
    if getattr(args, "cluster_threshold", 0.0) < 0:
        raise UserError("--cluster-threshold must not be negative")
    values = {name: getattr(args, name) for name in declared_fields(command)
              if getattr(args, name, None) is not None}
    scored = command in (SCORE, DEMO)
    values["metrics"] = chosen_metrics(
        getattr(args, "metrics", None), default=DEFAULT_METRICS if scored else DEFAULTS.metrics,
        tsed=getattr(args, "tsed", True), tsed_08=getattr(args, "tsed_08", False),
        textual=getattr(args, "textual", False))
    if hasattr(args, "matrices") or needs_matrices:
        values["keep_matrices"] = bool(getattr(args, "matrices", False)) or needs_matrices
    given = getattr(args, "interpreter", None)
    if given is not None and interpreter is not None:
        values["interpreter"] = interpreter(given)
    return dataclasses.replace(DEFAULTS, **values)
