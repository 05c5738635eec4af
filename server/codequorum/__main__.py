"""`python -m codequorum` runs the command line.

``-m`` puts the current folder first on ``sys.path``; run inside a repository, its
``numpy.py`` or ``json.py`` would then be imported in place of the real module, with the
user's rights. The current folder is taken off before anything else is imported (as
``python -P`` would; ``PYTHONSAFEPATH=1`` also keeps a ``codequorum/`` folder there from
standing in for this package).
"""

import os
import sys


def _drop_current_folder() -> None:
    """Take the current folder (what ``-m`` put first) off ``sys.path``."""
    try:
        here = os.getcwd()
    except OSError:  # a deleted current folder: nothing can be imported from it
        return
    if not sys.flags.safe_path and sys.path and os.path.abspath(sys.path[0] or here) == here:
        del sys.path[0]


_drop_current_folder()

from codequorum.cli.main import main  # noqa: E402  (after the current folder left sys.path)

raise SystemExit(main())
