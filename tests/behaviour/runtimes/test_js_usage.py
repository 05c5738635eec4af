"""Types of untyped JavaScript parameters from their use: records, maps, sets, what a string
searches for, what is compared with a string, and the elements' own use."""

from __future__ import annotations

import pytest

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
from codequorum.behaviour.runtimes.js_inputs import collect_js_inputs
from codequorum.behaviour.runtimes.js_usage import (
    UNTOLD,
    guessed_across,
    guessed_types,
    helpers_in,
    shown_uses,
)
from codequorum.behaviour.runtimes.ts_draws import type_values
from codequorum.core.model import VersionSet
from codequorum.judge.dynamic_rules import dynamic_verdicts


@pytest.mark.parametrize(("code", "expected"), [
    # for ... in and Object.entries read keys: a record, not an array
    ("function f(d, n) { const o = {}; for (const k in d) if (d[k] >= n) o[k] = d[k]; return o; }",
     ["Record<string, number>", "number"]),
    ("function f(d, n) {"
     " return Object.fromEntries(Object.entries(d).filter(([k, v]) => v >= n)); }",
     ["Record<string, number>", "number"]),
    # .get / .set: a Map; .has / .add alone: a Set
    ("function f(m) { let b = null;"
     " for (const [k, v] of m.entries()) if (b === null || v > m.get(b)) b = k; return b; }",
     ["Map<string, number>"]),
    ("function f(seen, x) { if (seen.has(x)) return true; seen.add(x); return false; }",
     ["Set<number>", None]),
    # a Date's own methods: a Date (date-fns' compareLocalAsc)
    ("function f(a, b) { return a.getFullYear() - b.getFullYear() || a.getUTCMonth() -"
     " b.getMonth(); }", ["Date", "Date"]),
    ("function f(d) { return d.toISOString().slice(0, 10); }", ["Date"]),
    # what a string searches for is a string; an array's includes searches an element
    ("function f(s, c) { return s.split(c).length - 1; }", ["string", "string"]),
    ("function f(s, c) { return s.toLowerCase().length + (s.includes(c) ? 1 : 0); }",
     ["string", "string"]),
    ("function f(xs, x) { xs.push(1); return xs.includes(x); }", ["number[]", None]),
    # compared with a string, a string's character or one of its elements: a string
    ("function f(s, c) { let n = 0; for (const ch of s.toUpperCase()) n++;"
     " return s.charAt(0) === c; }",
     ["string", "string"]),
    ("function f(s, c) { s.trim(); let n = 0; for (const ch of s) if (ch === c) n++; return n; }",
     ["string", "string"]),
    ("function f(s, c) { s.trim(); return s[0] === c; }", ["string", "string"]),
    ("function f(op) { return op === 'add' ? 1 : 2; }", ["string"]),
    # the elements' own use: strings, arrays, from a loop or a callback (reduce's second)
    ("function f(words) { return words.map(w => w.toUpperCase()); }", ["string[]"]),
    ("function f(words) { return words.reduce((a, w) => a + w.trim(), ''); }", ["string[]"]),
    ("function f(rows) { let t = 0; for (const r of rows) t += r.length; return t; }",
     ["number[][]"]),
    ("function f(xs) { return xs.sort((a, b) => a.localeCompare(b)); }", ["string[]"]),
    ("function f(xs) { return [...new Set(xs)]; }", ["number[]"]),
])
def test_a_parameter_reads_as_its_use_shows(code: str, expected: list[str | None]) -> None:
    assert shown_uses(code, "f") == expected
    assert guessed_types(code, "f") == [t or "number" for t in expected]
    for t in expected:  # every guessed type is one the inputs draw (else NotLiteral)
        if t is not None:
            assert type_values(t, 1) is not None


def test_a_string_is_followed_across_names_and_long_chains_do_not_recurse() -> None:
    """``c`` meets ``b``, ``b`` meets ``a``, ``a`` meets a string literal: within the rounds
    the reading follows, each is a string; a chain of 3,000 comparisons is read in one
    walk, without recursion."""
    code = "function f(a, b, c) { if (a === 'x') {} if (b === a) {} if (c === b) {} return 0; }"
    assert guessed_types(code, "f") == ["string", "string", "string"]
    chain = " ".join(f"if (v{i} === v{i + 1}) {{}}" for i in range(3000))
    long = f"function f(v0, n) {{ {chain} return n * 2; }}"
    assert guessed_types(long, "f") == ["number", "number"]


def test_the_first_version_that_shows_a_use_decides() -> None:
    quiet = "function count(s, c) { let n = 0; for (const ch of s) if (ch === c) n++; return n; }"
    loud = "function count(s, c) { return s.split(c).length - 1; }"
    assert guessed_types(quiet, "count") == ["number[]", "number"]
    assert guessed_across([loud, quiet], "count") == ["string", "string"]


def test_a_record_parameter_draws_objects_and_a_map_draws_maps() -> None:
    codes = ["function maxKey(m) { let b = null; for (const [k, v] of m.entries())"
             " if (b === null || v > m.get(b)) b = k; return b; }"]
    plan = collect_js_inputs(VersionSet.from_codes("t", codes, language="javascript",
                                                  entry_point="maxKey"), scaling=False)
    assert "parameter types guessed from their use: Map<string, number>" in plan.notes
    assert plan.cases[1].test.args == ({"$": "map", "v": [["a", 1], ["b", -3]]},)


def test_versions_guessed_so_run_and_part_where_they_differ(node_sandboxed: object) -> None:
    """Before, ``c`` was drawn as a number: ``"hello".split(1)`` and the loop agreed on 0
    everywhere. Drawn as strings, the empty string parts them (``split("")`` splits
    between every character)."""
    versions = ["function count(s, c) { return s.split(c).length - 1; }",
                "function count(s, c) { let n = 0; for (const ch of s) if (ch === c) n++;"
                " return n; }"]
    report = run_dynamic(VersionSet.from_codes("t", versions, language="javascript",
                                               entry_point="count"), DynamicOptions())
    assert all(c.status == "ok" for c in report.candidates)
    assert report.output_clusters == [[0], [1]]
    [verdict] = [v for v in dynamic_verdicts(report) if v.code == "divergent-outputs"]
    assert ', "")' in verdict.message, verdict.message


@pytest.mark.parametrize(("code", "expected"), [
    # ``typeof p === '...'``: the type it names
    ("function f(s) { if (typeof s !== 'string') throw new TypeError('no'); return 1; }",
     ["string"]),
    ("function f(cb, n) { return typeof cb === 'function' ? cb(n) : n; }",
     ["Function", None]),
    # a regular expression's test and exec, encodeURI: a string
    ("function f(s) { return /^a+$/.test(s); }", ["string"]),
    ("function f(s) { const re = /(\\d+)/; return re.exec(s); }", ["string"]),
    ("function f(s) { return encodeURIComponent(s).length; }", ["string"]),
    # a name declared to hold the parameter speaks for it; one assigned again does not
    ("function f(_str) { var str = _str; return str.toUpperCase(); }", ["string"]),
    ("function f(x) { let y = x; y = 3; return y.toUpperCase(); }", [None]),
    # a property read that is named as a string's method is no use of a string
    ("function f(options) { const s = options.split ?? null; return s; }", [None]),
    # comments between the parameters are no parameters
    ("function f(a, // the text\n /* and */ b) { return a.trim() + b * 2; }",
     ["string", "number"]),
])
def test_more_uses_tell_a_type(code: str, expected: list[str | None]) -> None:
    assert shown_uses(code, "f") == expected


def test_a_parameter_handed_to_a_helper_is_what_the_helper_takes() -> None:
    module = ("function split(value) { return value.trim().split(' '); }\n"
              "function typed(n: number, s: string) { return n; }\n"
              "function deeper(v) { return middle(v); }\n"
              "function middle(w) { return last(w); }\n"
              "function last(z) { return z.toUpperCase(); }\n")
    helpers = helpers_in([module])
    code = ("function f(input, options, k) { const w = split(input, options);"
            " return typed(k, w) + deeper(options); }")
    assert shown_uses(code, "f", helpers) == ["string", None, "number"]  # three deep: no
    assert shown_uses(code, "f") == [None, None, None]
    inside = ("function f(x) { return helper(x); }\n"
              "function helper(y) { return y.map(v => v * 2); }\n")
    assert guessed_across([inside], "f") == ["number[]"]  # a version's own helpers
    assert guessed_across(["function f(a, b) { return g(a) + h(b); }"], "f") == [
        UNTOLD, UNTOLD]
    recursive = "function f(n) { return f(n); }"
    assert shown_uses(recursive, "f", helpers_in([recursive])) == [None]


@pytest.mark.parametrize("call", [
    "assertString(str)", "util.assertString(str)", "(0, util_1.assertString)(str)",
    "(0, _assertString.default)(str)", "(0, assertString_1.default)(str)",
])
def test_a_helper_is_reached_through_a_module_object_and_compiled_imports(call: str) -> None:
    """A module's helper called by name, on the module a ``require`` gives, or as Babel and
    TypeScript write an import in CommonJS (a default export by its module's name)."""
    helper = ("function assertString(input) {\n"
              "  if (typeof input !== 'string') throw new TypeError('x');\n}\n")
    code = f"function isX(str) {{ {call}; return str.length; }}"
    assert shown_uses(code, "isX", helpers_in([helper])) == ["string"]


@pytest.mark.parametrize("call", ["this.assertString(str)", "a.b.assertString(str)",
                                  "(0, _other.default)(str)"])
def test_calls_that_reach_no_helper_leave_the_own_use(call: str) -> None:
    helper = ("function assertString(input) {\n"
              "  if (typeof input !== 'string') throw new TypeError('x');\n}\n")
    code = f"function isX(str) {{ {call}; return str.length; }}"
    assert shown_uses(code, "isX", helpers_in([helper])) == ["number[]"]


def test_a_parameter_handed_to_a_class_is_what_its_constructor_reads() -> None:
    """``new SemVer(a)``: ``a`` is what ``SemVer``'s constructor checks (a string); a
    method of a class is no helper (``s.split(sep)`` is a string's ``split``, not the
    class's ``split(x)``)."""
    classes = ("class SemVer {\n  constructor(version, options) {\n"
               "    if (typeof version !== 'string') throw new TypeError('x');\n"
               "    this.raw = version.trim();\n  }\n  split(x) { return x * 2; }\n}\n"
               "class Other { constructor(n) { this.n = n * 2; } }\n")
    helpers = helpers_in([classes])
    assert sorted(helpers) == ["Other", "SemVer"]
    assert shown_uses("const major = (a, loose) => new SemVer(a, loose).major", "major",
                      helpers) == ["string", None]
    assert shown_uses("function f(a, b) { return new SemVer(a).raw + new Other(b).n; }", "f",
                      helpers) == ["string", "number"]
    assert shown_uses("function f(s, sep) { return s.split(sep); }", "f",
                      helpers) == ["string", "string"]


def test_a_parameter_s_own_method_is_not_the_module_s_helper_of_that_name() -> None:
    """``xs.scale(k)`` is a method of the parameter ``xs``: ``k`` is not what the module's
    own ``scale(n)`` reads, while ``util.scale(p)`` on a module object reaches it."""
    helper = "function scale(n) { return n.toFixed(2); }\n"
    helpers = helpers_in([helper])
    assert shown_uses("function f(xs, k) { xs.push(1); return xs.scale(k); }", "f",
                      helpers) == ["number[]", None]
    assert shown_uses("function f(p) { return util.scale(p); }", "f", helpers) == [None]
    number = helpers_in(["function scale(n: number) { return n * 2; }\n"])
    assert shown_uses("function f(p) { return util.scale(p); }", "f", number) == ["number"]
