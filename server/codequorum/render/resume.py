"""``score --resume``: which sets an earlier, unfinished run already wrote.

Only outputs written a set at a time and appended to can be resumed: the formats of
:mod:`codequorum.render.sinks` with a ``read_back`` (``jsonl``, one report a line, and
``csv``, one row a set under the fixed header), which also says how to read them. The
output is read a line at a time; an incomplete last line (the run was killed while writing
it) is cut off, so the file ends on a whole set before new ones are appended. Sets are known
by their task id (as written, ``read_back.written_id``), counted, so an id that occurs
twice in the inputs is skipped as often as it was written.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from codequorum.core.errors import UserError
from codequorum.render.sinks import OUTPUT_FORMATS, OutputFormat, names_of


def _complete_size(path: Path) -> int:
    """How many bytes of the file are complete lines (up to and with the last newline)."""
    end = size = 0
    with path.open("rb") as stream:
        for line in stream:
            size += len(line)
            if line.endswith(b"\n"):
                end = size
    return end


def _lines(path: Path, end: int) -> Iterator[str]:
    """The file's lines up to byte ``end``, newline removed, read one at a time."""
    read = 0
    with path.open("rb") as stream:
        for line in stream:
            read += len(line)
            if read > end:
                return
            yield line[:-1].decode("utf-8", errors="replace")


def already_written(path: str | None, fmt: OutputFormat) -> Counter[str]:
    """Task ids (as ``fmt`` writes them) already in the output ``path`` (empty when it does
    not exist yet), after cutting off an incomplete last line. :class:`UserError` when the
    output cannot be resumed: standard output, a format that is one document, a file of
    another format."""
    if fmt.read_back is None:
        resumable = [f for f in OUTPUT_FORMATS if f.resumable]
        raise UserError(f"--resume needs an output written a set at a time: --format "
                        f"{names_of(resumable)} (not {fmt.name})")
    if path is None or path == "-":
        raise UserError("--resume needs an output file (-o FILE) to read and append to")
    target = Path(os.path.realpath(path))
    try:
        info = target.stat()
    except FileNotFoundError:
        return Counter()
    if not stat.S_ISREG(info.st_mode):
        raise UserError(f"{path}: --resume needs a regular file")
    end = _complete_size(target)
    done = fmt.read_back.task_ids(_lines(target, end), path)
    if end != info.st_size:
        with target.open("r+b") as stream:
            stream.truncate(end)
    return done
