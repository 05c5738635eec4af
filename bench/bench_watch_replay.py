"""Is ordinary typing taken for an assistant's insertion? False offers per hour of typing.

Builds a typing replay from real Python (the HumanEval prompts with a CodeGen-16B completion
each, ``tests/fixtures/data``), files of a few functions typed into an editor the way the
language server receives the changes:

- one character a change, the editor's auto-indent after Enter (the typist then deletes to
  the indentation wanted, a tab stop at a time, or adds to it) and its auto-closed brackets
  and quotes (typed over when the typist reaches them, deleted at the end of the line);
- typos corrected at once, a word deleted and typed again, a line's text pasted in one
  change, an earlier line duplicated with its line end and deleted again;
- after each function, format on save: quotes made double (one change of many small edits)
  and a long call split over several lines (one edit of several lines that keeps the
  syntax tree); a rename of a parameter across the function (one change, every place);
  and sometimes the whole function cut and put back by undo.

Every change goes through :class:`codequorum.pipeline.watch.document.DocumentWatch`, the object the
language server runs per document, and every function it reports during the replay is a
false offer. The replay's time is 0.2 s a keystroke (about 60 words a minute), 2 s a paste,
0.5 s a format, 3 s a rename, 1 s a cut or an undo. Then the other way round: each function
pasted whole, its completion inserted under a typed header and docstring (an accepted
inline completion: the CodeGen completion after its HumanEval prompt), and
written between two functions by a file reload (an agent's edit on disk): the share
detected. It also times the watch per change (the server's cost per keystroke).

    .venv/bin/python bench/bench_watch_replay.py
    .venv/bin/python bench/bench_watch_replay.py --events /tmp/replay.json   # for the extension
    .venv/bin/python bench/bench_watch_replay.py --smoke   # two functions, one file

``--events`` writes the replay's changes as the VS Code extension sees them (the document
version, VS Code's ``reason``, how many content changes), which
``bench/bench_watch_keystroke.mjs`` feeds to the extension's change handler.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import random
import re
import statistics
import sys
import time
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))

from codequorum.core.parsing import functions  # noqa: E402
from codequorum.core.quoted import top_level_split  # noqa: E402
from codequorum.pipeline.watch.arrivals import trivial_body, worth_parsing  # noqa: E402
from codequorum.pipeline.watch.document import DocumentWatch  # noqa: E402
from codequorum.pipeline.watch.edits import Edit  # noqa: E402
from reference_data import DATA, rows  # noqa: E402

OPENERS = {"(": ")", "[": "]", "{": "}"}
QUOTES = "\"'"
SECONDS = {"key": 0.2, "paste": 2.0, "format": 0.5, "rename": 3.0, "cut": 1.0, "undo": 1.0,
           "line": 2.0}


@dataclass
class Change:
    """One ``didChange``: its edits in order, what the user did, VS Code's ``reason``."""

    edits: list[Edit]
    kind: str
    reason: str | None = None


@dataclass
class Editor:
    """The document as the editor holds it, and every change made to it."""

    text: str = ""
    changes: list[Change] = field(default_factory=list)

    def change(self, edits: list[Edit], kind: str, reason: str | None = None) -> None:
        for e in edits:
            self.text = self.text[:e.start] + e.text + self.text[e.end:]
        self.changes.append(Change(edits, kind, reason))

    def insert(self, at: int, text: str, kind: str = "key") -> None:
        self.change([Edit(at, at, text)], kind)

    def delete(self, start: int, end: int, kind: str = "key") -> None:
        self.change([Edit(start, end, "")], kind)


def tasks(limit: int) -> list[tuple[str, str, str]]:
    """(entry point, prompt + the first completion that parses into a function with a body,
    the completion)."""
    out: list[tuple[str, str, str]] = []
    for row in rows(DATA):
        entry = row.get("entry_point") or re.findall(r"def (\w+)\(", row["prompt"])[-1]
        for version in row["samples"][:20]:
            text = (row["prompt"] + version).rstrip() + "\n"
            try:
                ast.parse(text)
            except SyntaxError:
                continue
            fn = next((f for f in functions(text, "python") if f.name == entry), None)
            if fn is not None and not trivial_body(fn.text, "python"):
                out.append((entry, text, text[len(row["prompt"]):]))
                break
        if len(out) >= limit:
            break
    return out


# --------------------------------------------------------------------------- the typist


def indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


class Typist:
    """Types ``target`` at the end of the editor's text, as a person in an editor would."""

    def __init__(self, editor: Editor, rng: random.Random) -> None:
        self.ed = editor
        self.rng = rng

    def type(self, target: str) -> None:
        ed = self.ed
        base = len(ed.text)
        pending = ""  # auto-inserted closers right after the cursor
        i = 0
        while i < len(target):
            cursor = len(ed.text) - len(pending)
            c = target[i]
            if c == "\n":
                if pending:
                    ed.delete(cursor, cursor + len(pending))
                    pending = ""
                i = self._enter(target, i, base)
                continue
            if self._at_line_start(target, i) and self.rng.random() < 0.05 and not pending:
                end = target.find("\n", i)
                end = len(target) if end < 0 else end
                if end - i > 3:
                    ed.insert(cursor, target[i:end], "paste")
                    i = end
                    continue
            if self._at_line_start(target, i) and self.rng.random() < 0.01 and not pending:
                self._duplicate_line(target, i, base, cursor)
            if c.isalpha() and self.rng.random() < 0.02:
                ed.insert(cursor, "x" if c != "x" else "y")
                ed.delete(cursor, cursor + 1)
            if not (c.isalnum() or c == "_") and self.rng.random() < 0.01:
                word = re.search(r"[A-Za-z_][A-Za-z_0-9]{2,}$", target[:i])
                if word and word.start() >= target.rfind("\n", 0, i):
                    ed.delete(cursor - len(word.group()), cursor)
                    i = word.start()
                    continue
            if pending and c == pending[0]:
                pending = pending[1:]  # typed over: no change
            elif c in OPENERS:
                ed.insert(cursor, c + OPENERS[c])
                pending = OPENERS[c] + pending
            elif c in QUOTES and self._closes_quote(target, i):
                ed.insert(cursor, c + c)
                pending = c + pending
            else:
                ed.insert(cursor, c)
            i += 1
        if pending:
            cursor = len(ed.text) - len(pending)
            ed.delete(cursor, cursor + len(pending))
        assert ed.text.endswith(target), "the replay lost its way"

    @staticmethod
    def _at_line_start(target: str, i: int) -> bool:
        start = target.rfind("\n", 0, i) + 1
        return not target[start:i].strip() and i < len(target) and target[i] not in " \t\n"

    @staticmethod
    def _closes_quote(target: str, i: int) -> bool:
        """VS Code closes a quote typed after a blank or an opening bracket."""
        prev = target[i - 1] if i else " "
        return prev in " \t([{=,:"

    def _enter(self, target: str, i: int, base: int) -> int:
        """Enter at ``target[i]`` (a line end): the editor's indentation, then the typist's."""
        ed = self.ed
        line_start = target.rfind("\n", 0, i) + 1
        line = target[line_start:i]
        indent = indentation(line) + ("    " if line.rstrip().endswith(":") else "")
        cursor = len(ed.text)
        ed.insert(cursor, "\n" + indent)
        end = target.find("\n", i + 1)
        nxt = target[i + 1: len(target) if end < 0 else end]
        want = indentation(nxt) if nxt.strip() else ""
        have = indent
        while have and not want.startswith(have):
            step = (len(have) - 1) % 4 + 1 if set(have) == {" "} else 1
            ed.delete(len(ed.text) - step, len(ed.text))
            have = have[:-step]
        for ch in want[len(have):]:
            ed.insert(len(ed.text), ch)
        return i + 1 + len(want)

    def _duplicate_line(self, target: str, i: int, base: int, cursor: int) -> None:
        """Copy an earlier line with its line end above this one, then delete it again."""
        earlier = [ln for ln in target[:i].split("\n") if len(ln.strip()) > 12]
        if not earlier:
            return
        line = self.rng.choice(earlier) + "\n"
        start = self.ed.text.rfind("\n", 0, cursor) + 1
        self.ed.insert(start, line, "line")
        self.ed.delete(start, start + len(line), "line")


# --------------------------------------------------------------------------- after a function


def double_quotes(code: str) -> list[tuple[int, int, str]]:
    """Edits (start, end, text) of ``code`` that make its single-quoted strings double."""
    edits: list[tuple[int, int, str]] = []
    lines = code.splitlines(keepends=True)
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln))
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    for tok in tokens:
        s = tok.string
        if tok.type != tokenize.STRING or not s.startswith("'") or s.startswith("'''"):
            continue
        if '"' in s or "\\" in s:
            continue
        start = offsets[tok.start[0] - 1] + tok.start[1]
        end = offsets[tok.end[0] - 1] + tok.end[1]
        edits += [(start, start + 1, '"'), (end - 1, end, '"')]
    return edits


def split_call(code: str) -> tuple[int, int, str] | None:
    """One edit that splits the first call with two or more arguments of a line over 60
    characters into one argument a line, as a formatter does; None when none keeps the tree."""
    offset = 0
    for line in code.splitlines(keepends=True):
        if len(line) > 60:
            for m in re.finditer(r"\w\(", line):
                open_at = m.end() - 1
                depth, close_at = 0, -1
                for k in range(open_at, len(line)):
                    depth += {"(": 1, ")": -1}.get(line[k], 0)
                    if depth == 0:
                        close_at = k
                        break
                inner = line[open_at + 1: close_at] if close_at > 0 else ""
                args = top_level_split(inner, quotes="'\"")
                if len(args) < 3:
                    continue
                pad = indentation(line)
                new = "\n" + "".join(f"{pad}    {a.strip()},\n" for a in args) + pad
                candidate = (code[:offset + open_at + 1] + new + code[offset + close_at:])
                try:
                    if ast.dump(ast.parse(candidate)) == ast.dump(ast.parse(code)):
                        return offset + open_at + 1, offset + close_at, new
                except SyntaxError:
                    continue
        offset += len(line)
    return None


def after_function(ed: Editor, start: int, entry: str, rng: random.Random) -> None:
    """Format on save, a rename, and sometimes a cut put back by undo, on the function that
    starts at ``start`` and runs to the end of the text."""
    code = ed.text[start:]
    quotes = double_quotes(code)
    if quotes:
        ed.change([Edit(start + a, start + b, t) for a, b, t in reversed(quotes)], "format")
    split = split_call(ed.text[start:])
    if split is not None:
        a, b, t = split
        ed.change([Edit(start + a, start + b, t)], "format")
    if rng.random() < 0.3:
        _rename(ed, start, entry)
    if rng.random() < 0.1:
        fn = next((f for f in functions(ed.text, "python") if f.name == entry), None)
        if fn is not None:
            data = ed.text.encode("utf-8")
            a = len(data[:fn.start_byte].decode("utf-8"))
            b = len(data[:fn.end_byte].decode("utf-8"))
            cut = ed.text[a:b]
            ed.delete(a, b, "cut")
            ed.change([Edit(a, a, cut)], "undo", reason="undo")


def _rename(ed: Editor, start: int, entry: str) -> None:
    code = ed.text[start:]
    header = re.search(rf"def {re.escape(entry)}\(([^)]*)\)", code)
    names = re.findall(r"\b([a-z_]\w*)\s*(?::|,|$|=)", header.group(1)) if header else []
    names = [n for n in names if n not in ("self",) and len(n) > 1]
    if not names:
        return
    name = names[0]
    spots = [m.start() for m in re.finditer(rf"\b{re.escape(name)}\b", code)]
    edits = [Edit(start + s, start + s + len(name), name + "_value") for s in reversed(spots)]
    ed.change(edits, "rename")


# --------------------------------------------------------------------------- the replay


@dataclass
class Tally:
    """What the replay counted."""

    changes: int = 0
    seconds: float = 0.0
    parsed: int = 0
    offers: list[str] = field(default_factory=list)
    per_change_ns: list[int] = field(default_factory=list)


def replay(changes: list[Change], tally: Tally, memory: bool = True) -> str:
    """Every change through a :class:`DocumentWatch` (``memory``: False forgets what the
    document had, to show the replay can fail); false offers and time per change."""
    watch = DocumentWatch() if memory else DocumentWatch(kept=0)
    text = ""
    for change in changes:
        befores = []
        for e in change.edits:
            befores.append(text)
            text = text[:e.start] + e.text + text[e.end:]
        began = time.perf_counter_ns()
        found = watch.arrivals("python", befores, change.edits, text)
        tally.per_change_ns.append(time.perf_counter_ns() - began)
        tally.parsed += worth_parsing(change.edits)
        tally.changes += 1
        tally.seconds += SECONDS[change.kind] if change.kind != "key" else SECONDS["key"]
        tally.offers += [f"{change.kind}: {a.qualified_name}" for a in found]
    return text


def typing_replay(items: list[tuple[str, str, str]], per_file: int, seed: int
                  ) -> tuple[list[list[Change]], int]:
    """The changes of typing ``items`` into files of ``per_file`` functions each."""
    rng = random.Random(seed)
    files: list[list[Change]] = []
    chars = 0
    for k in range(0, len(items), per_file):
        ed = Editor()
        for entry, text, _ in items[k:k + per_file]:
            start = len(ed.text)
            Typist(ed, rng).type(text + "\n\n")
            chars += len(text)
            after_function(ed, start, entry, rng)
        files.append(ed.changes)
    return files, chars


def insertions(items: list[tuple[str, str, str]], seed: int) -> dict[str, tuple[int, int]]:
    """Per way an assistant writes a function: (found, tried)."""
    rng = random.Random(seed)
    counts = {"pasted whole": [0, 0], "completion under a typed header and docstring": [0, 0],
              "the same, completions of more than one line": [0, 0],
              "written between two functions (reload)": [0, 0]}
    for entry, text, completion in items:
        others = [t for _, t, _ in rng.sample(items, 2) if t != text]
        head = "".join(o + "\n\n" for o in others)
        typed = head + text[: len(text) - len(completion)]
        cases = {
            "pasted whole": (head, [Edit(len(head), len(head), text)]),
            "completion under a typed header and docstring": (
                typed, [Edit(len(typed), len(typed), completion)]),
            "written between two functions (reload)": (
                head, [Edit(len(others[0]) + 1, len(others[0]) + 1, "\n\n" + text)]),
        }
        for name, (before, edits) in cases.items():
            watch = DocumentWatch()
            after = before
            befores = []
            for e in edits:
                befores.append(after)
                after = after[:e.start] + e.text + after[e.end:]
            found = watch.arrivals("python", befores, edits, after)
            hit = any(a.name == entry for a in found)
            counts[name][1] += 1
            counts[name][0] += hit
            if name.startswith("completion") and "\n" in completion.strip("\n"):
                counts["the same, completions of more than one line"][1] += 1
                counts["the same, completions of more than one line"][0] += hit
    return {k: (v[0], v[1]) for k, v in counts.items()}


def _position(text: str, offset: int) -> tuple[int, int]:
    """(line, UTF-16 column) of a character offset, as a client sends it."""
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return line, len(text[start:offset].encode("utf-16-le")) // 2


def protocol_cost(files: list[list[Change]], rounds: int = 3) -> tuple[list[int], list[int]]:
    """Nanoseconds per change in the server: pygls applying it (the baseline), and the same
    with what the server adds (each edit's offsets, then the watch), best of ``rounds``."""
    from lsprotocol import types
    from pygls.workspace import TextDocument

    from codequorum.lsp.server import edit_of

    plain: list[int] = []
    watched: list[int] = []
    for changes in files:
        params: list[list[types.TextDocumentContentChangePartial]] = []
        text = ""
        for change in changes:
            row = []
            for e in change.edits:
                (l1, c1), (l2, c2) = _position(text, e.start), _position(text, e.end)
                rng = types.Range(start=types.Position(line=l1, character=c1),
                                  end=types.Position(line=l2, character=c2))
                row.append(types.TextDocumentContentChangePartial(range=rng, text=e.text))
                text = text[:e.start] + e.text + text[e.end:]
            params.append(row)
        for with_watch, out in ((False, plain), (True, watched)):
            best: list[int] | None = None
            for _ in range(rounds):
                doc = TextDocument("file:///bench/app.py", "", language_id="python",
                                   sync_kind=types.TextDocumentSyncKind.Incremental)
                watch = DocumentWatch()
                times = []
                for row in params:
                    began = time.perf_counter_ns()
                    befores, edits = [], []
                    for content in row:
                        if with_watch:
                            befores.append(doc.source)
                            edit = edit_of(doc, content)
                            assert edit is not None
                            edits.append(edit)
                        doc.apply_change(content)
                    if with_watch:
                        watch.arrivals("python", befores, edits, doc.source)
                    times.append(time.perf_counter_ns() - began)
                best = (times if best is None
                        else [min(a, b) for a, b in zip(best, times, strict=True)])
            out += best or []
    return plain, watched


def quantile(ordered: list[int], q: float) -> float:
    """The ``q`` quantile of sorted nanoseconds, in microseconds."""
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e3


def _quantiles(ns: list[int]) -> str:
    ordered = sorted(ns)
    return f"median {quantile(ordered, 0.5):.1f} µs, p95 {quantile(ordered, 0.95):.1f} µs"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=164, help="functions to type (max 164)")
    parser.add_argument("--per-file", type=int, default=6, help="functions per file")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--no-memory", action="store_true",
                        help="forget what each document had (the replay must then fail)")
    parser.add_argument("--protocol-files", type=int, default=4,
                        help="files replayed through pygls to time the server's whole change")
    parser.add_argument("--events", type=Path, help="write the replay's changes for the "
                        "extension's handler (bench_watch_keystroke.mjs)")
    parser.add_argument("--smoke", action="store_true", help="two functions, one file")
    args = parser.parse_args(argv)
    if args.smoke:
        args.tasks, args.per_file, args.protocol_files = 2, 2, 1
    items = tasks(args.tasks)
    files, chars = typing_replay(items, args.per_file, args.seed)
    tally = Tally()
    for changes in files:
        replay(changes, tally, memory=not args.no_memory)
    hours = tally.seconds / 3600
    kinds: dict[str, int] = {}
    for changes in files:
        for c in changes:
            kinds[c.kind] = kinds.get(c.kind, 0) + 1
    ns = sorted(tally.per_change_ns)
    print(f"typing replay: {len(items)} functions in {len(files)} files, {chars} characters, "
          f"{tally.changes} changes ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})")
    print(f"  {hours:.2f} hours of typing at 0.2 s a keystroke; {tally.parsed} changes inserted "
          "text over more than one line and were parsed")
    print(f"  false offers: {len(tally.offers)} ({len(tally.offers) / hours:.2f} per hour of "
          "typing)" + (f": {tally.offers[:10]}" if tally.offers else ""))
    print(f"  the watch per change (server side): median {statistics.median(ns) / 1e3:.1f} µs, "
          f"p95 {quantile(ns, 0.95):.1f} µs, p99 {quantile(ns, 0.99):.1f} µs, "
          f"max {ns[-1] / 1e6:.2f} ms")
    plain, watched = protocol_cost(files[: args.protocol_files])
    added = [w - p for w, p in zip(watched, plain, strict=True)]
    print(f"  a change in the server, {len(plain)} changes of {args.protocol_files} files: "
          f"pygls alone {_quantiles(plain)}; with the watch {_quantiles(watched)}; "
          f"added {_quantiles(added)} ({statistics.median(watched) / statistics.median(plain):.2f}"
          "× the median)")
    found = insertions(items, args.seed)
    for name, (hit, tried) in found.items():
        print(f"  insertion {name}: found {hit} of {tried} ({100 * hit / tried:.1f} %)")
    if args.events:
        events = [[version, c.reason, len(c.edits)]
                  for changes in files for version, c in enumerate(changes, start=2)]
        args.events.write_text(json.dumps({"changes": events}), encoding="utf-8")
        print(f"  wrote {len(events)} changes to {args.events}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
