"""The sink of a run whose risk level is set by its own sets
(:mod:`codequorum.pipeline.risk_level`): every set's risk must be known before any set's
level is, so nothing is written with a level until the last set is in.

- A streamed format written to a regular file as sets come (``score --scheduler``, and
  ``--resume``): each line is written with the set's own risk as it comes, so that a run
  that is killed can be taken up again; when the run ends, the file is written again,
  atomically, with every line's risk moved, from what the lines themselves keep
  (``risk_alone``, ``risk_evidence``): the lines an earlier run wrote count with the new
  ones, and the same sets give the same bytes however the run went.
- Every other output (a local run, the JSON document, the table, the page, standard output,
  a pipe): the reports are kept in a temporary file as they come and handed to the format's
  sink, moved, once the last one is in (so on standard output a cluster run's lines come at
  the end).

Without a :class:`~codequorum.pipeline.risk_level.RunLevel` (a run that did not run the
versions), or with ``--risk-level set`` (:meth:`RunLevel.each_set`), the format's own sink
is used as it is; a file taken up again with ``--risk-level set`` is written back to each
set's own risk, so that it holds what a run at that level writes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from typing import IO

from codequorum.core.report import StabilityReport
from codequorum.pipeline.risk_level import RunLevel
from codequorum.render.outfile import STDOUT, open_output
from codequorum.render.sinks import OutputFormat, ReadBack, RunEnd, Sink, SinkRequest


class _Spooled:
    """Reports kept in a temporary file until the run ends, then handed on, moved."""

    def __init__(self, inner: Sink, level: RunLevel, spool: IO[bytes]) -> None:
        self.inner, self.level, self.spool = inner, level, spool
        self.written = 0

    def add(self, report: StabilityReport, codes: Sequence[str] | None) -> None:
        self.level.add_report(report)
        pickle.dump((report, None if codes is None else list(codes)), self.spool,
                    protocol=pickle.HIGHEST_PROTOCOL)
        self.written += 1

    def finish(self, end: RunEnd) -> None:
        self.spool.flush()
        self.spool.seek(0)
        for _ in range(self.written):
            report, codes = pickle.load(self.spool)  # our own reports, written above
            self.level.apply(report)
            self.inner.add(report, codes)
        self.inner.finish(dataclasses.replace(end, risk_levels=self.level.summary()))


class _Passed:
    """Each report handed on as it comes, with its own risk (the file is moved after)."""

    def __init__(self, inner: Sink) -> None:
        self.inner = inner
        self.written = 0

    def add(self, report: StabilityReport, codes: Sequence[str] | None) -> None:
        self.inner.add(report, codes)
        self.written = self.inner.written

    def finish(self, end: RunEnd) -> None:
        self.inner.finish(end)


def rewritable(path: str | None) -> bool:
    """Whether ``-o path`` names a regular file (or none yet) that can be written again."""
    if path is None or path == STDOUT:
        return False
    try:
        info = os.stat(os.path.realpath(path))
    except FileNotFoundError:
        return True
    return stat.S_ISREG(info.st_mode)


def relevel_file(path: str, read_back: ReadBack, level: RunLevel) -> None:
    """Write the file a streamed format wrote again with every line's risk moved to its
    group's rate, from the own risks its lines keep (the other lines as they are);
    atomically, through a temporary copy, so that a reader never sees half of it."""
    real = os.path.realpath(path)
    level.clear()
    with open(real, encoding="utf-8", newline="") as source:
        for line in source:
            found = read_back.risk_of(line.removesuffix("\n"))
            if found is not None:
                level.add(found[0], found[1])
    with tempfile.TemporaryFile("w+", encoding="utf-8", newline="") as copy:
        with open(real, encoding="utf-8", newline="") as source:
            for line in source:
                bare = line.removesuffix("\n")
                found = read_back.risk_of(bare)
                if found is None:
                    copy.write(line)
                    continue
                model, alone, evidence = found
                copy.write(read_back.with_risk(bare, level.moved(model, alone, evidence)))
        copy.seek(0)
        with open_output(path) as out:
            shutil.copyfileobj(copy, out)


@contextlib.contextmanager
def open_sink(fmt: OutputFormat, request: SinkRequest, level: RunLevel | None
              ) -> Iterator[Sink]:
    """``fmt``'s sink for ``request``; with ``level``, one that sets every set's risk
    level from the run's sets (see module docstring). An exception inside leaves a
    streamed file with each set's own risk, as a killed run would."""
    if level is None:
        with fmt.open(request) as sink:
            yield sink
        return
    if (fmt.read_back is not None and request.incremental and request.path is not None
            and rewritable(request.path)):
        with fmt.open(request) as sink:
            yield _Passed(sink)
        if request.append or not level.alone:  # lines an earlier run moved are put back
            relevel_file(request.path, fmt.read_back, level)
        return
    if level.alone:  # each set's own risk, as it comes
        with fmt.open(request) as sink:
            yield sink
        return
    with tempfile.TemporaryFile() as spool, fmt.open(request) as sink:
        yield _Spooled(sink, level, spool)


__all__ = ["open_sink", "relevel_file", "rewritable"]
