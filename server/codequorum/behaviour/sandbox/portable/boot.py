"""Starts ``guest.py`` in the WebAssembly guest from the harness compiled once.

Stdlib only; the host runs ``python -S /harness/portable/boot.py [--grader]``. A script is
compiled at every start (a third of what the harness adds to a guest's start), so this
small one runs ``guest.py``'s code from the bundle (``/bundle/bundle.marshal``, written by
``guest.py --bundle``) where it was compiled from the same text, else compiles it, and
hands the bundle on so that ``guest.py`` does not read it again.
"""

import marshal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType

GUEST = "/harness/portable/guest.py"
BUNDLE = "/bundle/bundle.marshal"


def _code() -> "tuple[CodeType, dict[str, object]]":
    """``guest.py``'s code object and the bundle (empty when there is none)."""
    with open(GUEST, encoding="utf-8") as handle:
        source = handle.read()
    try:
        with open(BUNDLE, "rb") as handle:
            codes = marshal.loads(handle.read())
        length, code = codes[GUEST]
        if length == len(source) and isinstance(code, type(_code.__code__)):
            return code, codes
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        codes = {}
    return compile(source, GUEST, "exec", dont_inherit=True), codes if isinstance(
        codes, dict) else {}


if __name__ == "__main__":
    _guest, _bundle = _code()
    exec(_guest, {"__name__": "__main__", "__file__": GUEST, "__builtins__": __builtins__,
                  "BUNDLED_CODE": _bundle})
