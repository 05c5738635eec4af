"""Which function of a JavaScript or TypeScript set to call, when the set does not say.

Sample sets from a benchmark or an editor often give versions and no ``entry_point``: the
function is then the one most versions define (``function f``, ``const f = () => ...``,
``export default function f``, a class's or object's method as ``Owner.name``), a name the
prompt mentions winning a tie, then a top-level name over a method, then the last one the
first version defines (an answer comes after its helpers). A constructor is never called.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from codequorum.core.errors import UserError
from codequorum.core.limits import InputLimitError
from codequorum.core.parsing import functions


def defined_names(code: str, language: str) -> list[str]:
    """The qualified names of the functions ``code`` defines, in order (no constructors,
    no nested functions); empty when it does not parse within the limits."""
    try:
        found = functions(code, language)
    except (InputLimitError, UserError, ValueError):
        return []
    names = [f.qualified_name for f in found if f.name != "constructor"]
    nested = {n for n in names for m in names if n != m and n.startswith(m + ".")
              and m in {f.qualified_name for f in found if f.kind == "function"}}
    return [n for n in dict.fromkeys(names) if n not in nested]


def guess_entry(codes: Sequence[str], language: str, prompt: str | None = None) -> str | None:
    """The function to call (module docstring); None when no version defines one."""
    per_version = [defined_names(c, language) for c in codes if c.strip()]
    counts = Counter(n for names in per_version for n in names)
    if not counts:
        return None
    last = {n: i for i, n in enumerate(next((v for v in per_version if v), []))}
    mentioned = set(re.findall(r"[A-Za-z_$][\w$]*", prompt or ""))

    def rank(name: str) -> tuple[int, bool, bool, int]:
        return (counts[name], name.rpartition(".")[2] in mentioned, "." not in name,
                last.get(name, -1))
    return max(counts, key=rank)


def same_function(name: str, defined: str) -> bool:
    """Whether ``defined`` names the function ``name`` means, the way a benchmark's name
    and a model's differ: ``has_close_elements`` and ``hasCloseElements``."""
    def key(n: str) -> str:
        return n.rpartition(".")[2].replace("_", "").lower()
    return key(name) == key(defined)


__all__ = ["defined_names", "guess_entry", "same_function"]
