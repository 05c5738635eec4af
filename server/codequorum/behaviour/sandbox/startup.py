"""How every sandboxed interpreter starts: its flags and its whole environment.

The fork server and each child started afresh (in bubblewrap or not) run
``python -s -S -B child.py``: no user site-packages, no ``site``, no ``.pyc`` written.
Not ``-I`` (nor its ``-E``): that would ignore :data:`HASH_SEED` as well. Nothing else
reaches the interpreter through the environment, which is always wholly the one
:func:`environment` gives (the parent passes a whole one; bubblewrap starts from
``--clearenv``); ``child.py`` takes its own folder off ``sys.path``, as ``-I`` would.

:data:`HASH_SEED` fixes the string-hash seed, so the same version gives the same outputs
on every run: the order of a set of strings, or which of its keys a dict built from it
keeps, follows the seed. Children forked by the fork server inherit it.
"""

from __future__ import annotations

FLAGS: tuple[str, ...] = ("-s", "-S", "-B")
HASH_SEED = "0"
#: Every version's local time is UTC, on every machine (``fixed_world.py`` fixes the clock;
#: the portable guest's WASI has no other zone): a POSIX rule, which needs no zone file.
TIME_ZONE = "UTC0"


def environment(path: str, home: str, tmp: str | None = None) -> dict[str, str]:
    """The whole environment of a sandboxed interpreter: ``PATH``, ``LANG``, ``HOME``,
    ``TMPDIR`` (when ``tmp``), the hash seed and the time zone."""
    env = {"PATH": path, "LANG": "C.UTF-8", "HOME": home, "PYTHONHASHSEED": HASH_SEED,
           "TZ": TIME_ZONE}
    if tmp is not None:
        env["TMPDIR"] = tmp
    return env
