"""``score --resume``: which sets an earlier, unfinished run already wrote.

Only outputs written a set at a time and appended to can be resumed: ``jsonl`` (one report
a line) and ``csv`` (one row a set under the fixed header). The output is read a line at
a time; an incomplete last line (the run was killed while writing it) is cut off, so the
file ends on a whole set before new ones are appended. Sets are known by their task id
(as written, :func:`written_task_id`), counted, so an id that
occurs twice in the inputs is skipped as often as it was written.
"""

from __future__ import annotations

import csv
import json
import os
import stat
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from codequorum.core.errors import UserError
from codequorum.core.safe_text import safe_text
from codequorum.render.csv_out import CSV_COLUMNS, text_cell

#: Output formats ``--resume`` can append to.
RESUMABLE: tuple[str, ...] = ("jsonl", "csv")


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


def written_task_id(task_id: str, fmt: str) -> str:
    """A task id as the output ``fmt`` writes it: what :func:`already_written` counts (a
    CSV cell that would start a formula has a leading ``'``)."""
    return text_cell(task_id) if fmt == "csv" else safe_text(task_id)


def already_written(path: str | None, fmt: str) -> Counter[str]:
    """Task ids already in the output ``path`` (empty when it does not exist yet), after
    cutting off an incomplete last line. :class:`UserError` when the output cannot be
    resumed: standard output, a format that is one document, a file of another format."""
    if fmt not in RESUMABLE:
        raise UserError(f"--resume needs an output written a set at a time: --format "
                        f"{' or '.join(RESUMABLE)} (not {fmt})")
    if path is None or path == "-":
        raise UserError("--resume needs an output file (-o FILE) to read and append to")
    target = Path(os.path.realpath(path))
    try:
        info = target.stat()
    except FileNotFoundError:
        return Counter()
    if not stat.S_ISREG(info.st_mode):
        raise UserError(f"{path}: --resume needs a regular file")
    done: Counter[str] = Counter()
    end = _complete_size(target)
    lines = _lines(target, end)
    if fmt == "csv":
        rows = csv.reader(lines)
        header = next(rows, None)
        if header is not None and tuple(header) != CSV_COLUMNS:
            raise UserError(f"{path}: not a codequorum CSV of this version (header differs); "
                            "cannot resume into it")
        done.update(row[0] for row in rows if row)
    else:
        for number, line in enumerate(lines, start=1):
            try:
                task_id = json.loads(line)["task_id"]
            except (ValueError, KeyError, TypeError):
                raise UserError(f"{path}:{number}: not a report line; cannot resume into "
                                "this file") from None
            done[str(task_id)] += 1
    if end != info.st_size:
        with target.open("r+b") as stream:
            stream.truncate(end)
    return done
