"""Hypothesis draws that come from one seed alone: the same inputs on every run, every
machine, from the command line and the language server alike, with nothing written into
the workspace."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
from typing import Any

from codequorum.core import scratch

#: The seed every draw starts from (the same inputs on every run and every machine).
HYPOTHESIS_SEED = 0
#: Draws made per input wanted: the plain backend keeps no record of the choices made so
#: far (only Hypothesis' default one does), so draws can repeat; three per input leave
#: ``n`` distinct ones wherever the types allow that many.
DRAWS_PER_INPUT = 3
_PLAIN_BACKEND = "codequorum-plain"
_private_home: list[str] = []


def keep_hypothesis_out_of_the_workspace() -> None:
    """Hypothesis caches what it reads under ``.hypothesis/`` in the working directory:
    point it at a private temporary directory, removed at exit (unless the user chose
    one with ``HYPOTHESIS_STORAGE_DIRECTORY``)."""
    if _private_home or os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    from hypothesis.configuration import set_hypothesis_home_dir

    home = scratch.make("hypothesis")
    _private_home.append(home)
    atexit.register(shutil.rmtree, home, True)
    set_hypothesis_home_dir(home)


@functools.cache
def plain_backend() -> str:
    """The name of a Hypothesis backend that draws from the seed alone.

    Hypothesis' default provider also draws, now and then, constants it collects from the
    source of every module loaded in the process that is not installed in site-packages
    (codequorum itself in an editable install, a benchmark script, whatever the process
    imported before): the inputs would change with any string added anywhere in the code,
    between an editable install and a wheel, and between the command line and the
    language server. This backend is that provider without those constants, registered
    the way Hypothesis takes alternative backends (``AVAILABLE_PROVIDERS`` and
    ``settings(backend=...)``)."""
    from hypothesis.internal.conjecture.providers import AVAILABLE_PROVIDERS, HypothesisProvider

    class PlainProvider(HypothesisProvider):
        """Hypothesis' provider, drawing no collected constants (neither the code's nor its
        own list of interesting values)."""

        def _maybe_draw_constant(self, choice_type: Any, constraints: Any, *,
                                 p: float = 0.05) -> None:
            return None

    AVAILABLE_PROVIDERS[_PLAIN_BACKEND] = PlainProvider
    return _PLAIN_BACKEND


def distinct_draws(strategy: Any, n: int, tries: int = DRAWS_PER_INPUT) -> list[Any]:
    """Up to ``n`` distinct values of ``strategy`` (by ``repr``), in the order drawn, from
    :data:`HYPOTHESIS_SEED` alone (:func:`plain_backend`; no database); ``n * tries``
    draws at most. Hypothesis' own errors (a strategy it cannot draw from) pass on."""
    from hypothesis import HealthCheck, Phase, given, seed, settings

    if n <= 0:
        return []
    keep_hypothesis_out_of_the_workspace()
    drawn: list[Any] = []
    seen: set[str] = set()

    @seed(HYPOTHESIS_SEED)
    @settings(
        backend=plain_backend(),
        database=None,
        max_examples=n * tries,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def collect(value: Any) -> None:
        key = repr(value)
        if key not in seen:
            seen.add(key)
            drawn.append(value)

    collect()
    return drawn[:n]


__all__ = ["DRAWS_PER_INPUT", "HYPOTHESIS_SEED", "distinct_draws",
           "keep_hypothesis_out_of_the_workspace", "plain_backend"]
