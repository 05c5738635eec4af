"""What a remembered run saves: the time until a function's analysis holds its behaviour,
with the versions run (as ``check --dynamic`` and the editor's Run do) against read back from
the store (as a reopened editor or a later agent call does), in the same process and run.

The functions are those of ``tests/support/duration_module.py`` in their package (a relative
import of a constant, a helper called by a method) with their versions; each is prepared
with :meth:`codequorum.pipeline.session.Session.prepare` in a fresh session on the same
store, so the only difference is the run.

    .venv/bin/python bench/bench_remembered_runs.py [--repeat 3] [--smoke]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.duration_module import (  # noqa: E402
    DURATION_APP,
    DURATION_VERSIONS,
    UNITS_SOURCE,
)

from codequorum.core import parsing  # noqa: E402
from codequorum.core.model import Version  # noqa: E402
from codequorum.pipeline.session import Session, SessionConfig  # noqa: E402


def _session(root: Path) -> Session:
    s = Session(lambda _level, _message: None,
                SessionConfig(store=str(root / ".codequorum" / "samples.sqlite3")))
    s.reconfigure(s.config, str(root))
    return s


def _workspace(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "tools").mkdir()
    (root / "tools" / "__init__.py").write_text("")
    (root / "tools" / "units.py").write_text(UNITS_SOURCE)
    app = root / "tools" / "app.py"
    app.write_text(DURATION_APP)
    s = _session(root)
    for name, codes in DURATION_VERSIONS.items():
        s.add_sync("tools/app.py", "python", name, [Version(c, origin="relayed") for c in codes])
    s.close()
    return app


def _once(root: Path, app: Path, run: bool) -> float:
    """Seconds until every function's analysis holds a run (its own, or remembered)."""
    text = app.read_text()
    start = time.perf_counter()
    s = _session(root)
    for name in DURATION_VERSIONS:
        info = parsing.function_by_name(text, "python", name)
        prepared = s.prepare(text, app, "python", info, module=run)
        assert prepared is not None
        analysis = prepared.analysis
        if run:
            analysis = s.run_prepared(prepared, lambda _t, _p: None, threading.Event())
        assert analysis.dynamic is not None, name
    s.close()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="one round (a test runs it)")
    args = parser.parse_args()
    repeat = 1 if args.smoke else args.repeat
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        app = _workspace(root)
        ran = [_once(root, app, run=True) for _ in range(repeat)]
        read = [_once(root, app, run=False) for _ in range(repeat)]
    r, m = statistics.median(ran), statistics.median(read)
    print(f"{len(DURATION_VERSIONS)} functions, median of {repeat}: run {r:.3f} s, "
          f"remembered {m:.3f} s, ratio {r / m:.1f}x")


if __name__ == "__main__":
    main()
