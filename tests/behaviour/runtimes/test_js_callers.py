"""Inputs of a JavaScript function from the workspace's tests and callers: read from the
files that name it (an ESM package with its ``test.js``, a CommonJS module with a test
folder), each saying where it is, graded where a test's assertion states the outcome; and
through ``codequorum check --dynamic``, the call a test makes parts a bug from the real
function, and the version kept is the one the tests' assertions hold for."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from codequorum.behaviour.callers import MAX_CALLS
from codequorum.behaviour.dynamic_analysis import DynamicOptions, DynamicReport, run_dynamic
from codequorum.behaviour.runtimes.js_callers import is_test_file, literal_calls
from codequorum.behaviour.runtimes.js_inputs import collect_js_inputs
from codequorum.behaviour.runtimes.node import JAVASCRIPT
from codequorum.core.model import ModuleContext, TestCase, Version, VersionSet
from codequorum.ingest.js_module_view import js_module_view

SCRIPT = Path(sys.executable).parent / "codequorum"
#: An ESM package shaped like camelcase@8: a default export, a module constant.
INDEX = """const SEPARATORS = /[_.\\- ]+/;

export default function slug(input) {
\tinput = input.trim();
\tif (input.length === 1) {
\t\tif (SEPARATORS.test(input)) {
\t\t\treturn '';
\t\t}
\t\treturn input.toLowerCase();
\t}
\treturn input.toLowerCase().split(SEPARATORS).filter(Boolean).join('-');
}
"""
#: Its tests, as ava writes them: the only call with a separator alone is here.
TEST = """import test from 'ava';
import slug from './index.js';

test('slug', t => {
\tt.is(slug('Foo Bar'), 'foo-bar');
\tt.is(slug('-'), '');
\tt.is(slug(someName), 'x');
});
"""
#: The real function, the same written otherwise, and the check on separators dropped.
REAL = INDEX[INDEX.index("export default"):]
SAME = REAL.replace("input.length === 1", "input.length < 2 && input.length > 0")
BUG = REAL.replace("\t\tif (SEPARATORS.test(input)) {\n\t\t\treturn '';\n\t\t}\n", "")


def _package(root: Path) -> Path:
    (root / ".git").mkdir()
    (root / "package.json").write_text('{"name": "slug", "type": "module"}')
    (root / "index.js").write_text(INDEX)
    (root / "test.js").write_text(TEST)
    lib = root / "lib"
    lib.mkdir()
    (lib / "use.cjs").write_text("const slug = require('../index.js');\n"
                                 "module.exports = () => slug('A_b');\n")
    return root / "index.js"


def test_the_workspaces_tests_and_callers_give_inputs_saying_where(tmp_path: Path) -> None:
    path = _package(tmp_path)
    context = js_module_view(INDEX, path, tmp_path).context("slug")
    assert sorted(p for p, _ in context.callers) == ["lib/use.cjs", "test.js"]
    calls = literal_calls(context, "slug")
    assert [(c.args, c.in_test, c.where) for c in calls] == [
        (("Foo Bar",), True, "test.js:5"), (("-",), True, "test.js:6"),
        (("A_b",), False, "lib/use.cjs:2")]
    assert [c.expectation.expected if c.expectation else None for c in calls] == [
        "foo-bar", "", None]
    vs = VersionSet(task_id="t", versions=[Version(code=REAL)], language="javascript",
                    entry_point="slug", module=context)
    plan = collect_js_inputs(vs, scaling=False)
    found = [(c.label, c.origin, c.where, c.graded) for c in plan.cases]
    assert found == [('slug("Foo Bar")', "test", "test.js:5", True),
                     ('slug("-")', "test", "test.js:6", True),
                     ('slug("A_b")', "caller", "lib/use.cjs:2", False)]


def test_a_table_driven_test_gives_one_graded_call_per_row(tmp_path: Path) -> None:
    path = _package(tmp_path)
    (tmp_path / "slug.test.ts").write_text(
        "import slug from './index.js';\n\n"
        "test.each([['Foo Bar', 'foo-bar'], ['-', ''], [name, 'x']])(\n"
        "  'slug(%s)', (text, want) => {\n"
        "  expect(slug(text)).toBe(want);\n});\n")
    context = js_module_view(INDEX, path, tmp_path).context("slug")
    calls = [c for c in literal_calls(context, "slug") if c.where.startswith("slug.test")]
    assert [(c.args, c.where, c.expectation.expected if c.expectation else None)
            for c in calls] == [(("Foo Bar",), "slug.test.ts:5", "foo-bar"),
                                (("-",), "slug.test.ts:5", "")]


def test_test_files_are_named_as_javascript_projects_name_them() -> None:
    for path in ("test.js", "src/x.test.ts", "a/b.spec.mjs", "__tests__/x.js", "test/inc.js"):
        assert is_test_file(path), path
    for path in ("index.js", "src/latest.js", "contest.js"):
        assert not is_test_file(path), path


def test_check_parts_the_bug_on_the_call_a_test_makes(node_sandboxed: object,
                                                      tmp_path: Path) -> None:
    path = _package(tmp_path)
    (tmp_path / "versions.json").write_text(json.dumps([REAL, SAME, BUG]))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    subprocess.run([str(SCRIPT), "sample", str(path), "-f", "slug", "--from",
                    str(tmp_path / "versions.json"), "-q"], check=True, env=env, cwd=tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()
              and ".codequorum" not in p.parts}
    done = subprocess.run([str(SCRIPT), "check", "index.js", "--dynamic", "--format", "json",
                           "--fail-on", "never"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300)
    doc = json.loads(done.stdout)
    [row] = doc["functions"]
    assert row["not_run"] is None and "divergent-outputs" in row["verdicts"]
    assert row["interpreter"].startswith("node ")
    [finding] = [f for f in doc["findings"] if f["code"] == "divergent-outputs"]
    assert finding["versions"] == [0, 2]
    assert 'slug("-"): "" vs "-"' in finding["message"]
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()
             and ".codequorum" not in p.parts}
    assert after.pop(tmp_path / "config" / "codequorum" / "run-seal.key", None) is not None
    assert after == before  # nothing else written: the run's key seals what it remembers



#: A TypeScript module shaped like ms's ``format``: a guard the tests hold it to.
FMT = """export function fmt(ms: number): string {
  if (!Number.isFinite(ms)) {
    throw new Error('Value provided to fmt() must be a finite number');
  }
  return Math.abs(ms) >= 1000 ? `${Math.round(ms / 1000)}s` : `${ms}ms`;
}
"""
FMT_TEST = """import { describe, expect, it } from '@jest/globals';
import { fmt } from './fmt';

describe('fmt', () => {
  it('formats', () => {
    expect(fmt(500)).toBe('500ms');
    expect(fmt(1500)).toBe('2s');
  });
  it('throws on what is not a finite number', () => {
    expect(() => fmt(NaN)).toThrow();
    expect(() => { fmt(Infinity); }).toThrowError(Error);
  });
});
"""


def test_the_version_kept_is_the_one_the_tests_assertions_hold_for(
        node_sandboxed: object, tmp_path: Path) -> None:
    """Two versions without the guard agree with each other ("NaNms"), the real one
    throws as the test expects: the tests' assertions grade, and the real one is kept."""
    (tmp_path / ".git").mkdir()
    src = tmp_path / "src"
    src.mkdir()
    (src / "fmt.ts").write_text(FMT)
    (src / "fmt.test.ts").write_text(FMT_TEST)
    real = FMT[FMT.index("export function"):]
    loose = real.replace("  if (!Number.isFinite(ms)) {\n    throw new Error("
                         "'Value provided to fmt() must be a finite number');\n  }\n", "")
    assert loose != real
    looser = loose.replace("Math.abs(ms) >= 1000", "ms >= 1000 || ms <= -1000")
    (tmp_path / "versions.json").write_text(json.dumps([loose, looser, real]))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    subprocess.run([str(SCRIPT), "sample", "src/fmt.ts", "-f", "fmt", "--from",
                    str(tmp_path / "versions.json"), "-q"], check=True, env=env, cwd=tmp_path)
    done = subprocess.run([str(SCRIPT), "check", "src/fmt.ts", "--dynamic", "--format", "json",
                           "--fail-on", "never"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300)
    doc = json.loads(done.stdout)
    [row] = doc["functions"]
    assert row["not_run"] is None, row
    assert row["recommended"] == 2, row


#: A CommonJS class shaped like semver's ``SemVer``: a method reads what the constructor set.
VERSION = """class Version {
  constructor (text) {
    const [major, minor] = String(text).split('.')
    this.major = Number(major)
    this.minor = Number(minor)
  }

  compare (other) {
    other = new Version(other)
    return Math.sign(this.major - other.major) || Math.sign(this.minor - other.minor)
  }
}

module.exports = Version
"""
VERSION_TEST = """const { test } = require('tap')
const Version = require('../lib/version')

test('compare', t => {
  t.equal(new Version('1.2').compare('1.10'), -1)
  t.equal(new Version('2.0').compare('1.9'), 1)
  t.end()
})
"""
#: The method given alone, as ``export`` writes it: the real one, a string comparison.
COMPARE = VERSION[VERSION.index("  compare (other)"):VERSION.index("\n}\n\nmodule")]
COMPARE = "\n".join(line[2:] for line in COMPARE.splitlines()) + "\n"
COMPARE_BUG = COMPARE.replace(
    "return Math.sign(this.major - other.major) || Math.sign(this.minor - other.minor)",
    "const a = `${this.major}.${this.minor}`\n  const b = `${other.major}.${other.minor}`\n"
    "  return a === b ? 0 : a < b ? -1 : 1")


def test_a_method_runs_on_the_instance_its_test_makes(node_sandboxed: object,
                                                      tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "lib").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "lib" / "version.js").write_text(VERSION)
    (tmp_path / "test" / "version.test.js").write_text(VERSION_TEST)
    context = js_module_view(VERSION, tmp_path / "lib" / "version.js",
                             tmp_path).context("Version.compare", "method")
    calls = literal_calls(context, "compare")
    assert [(c.receiver, c.args) for c in calls][:2] == [(("1.2",), ("1.10",)),
                                                        (("2.0",), ("1.9",))]
    (tmp_path / "versions.json").write_text(json.dumps([COMPARE, COMPARE_BUG]))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    subprocess.run([str(SCRIPT), "sample", "lib/version.js", "-f", "Version.compare",
                    "--from", str(tmp_path / "versions.json"), "-q"], check=True, env=env,
                   cwd=tmp_path)
    done = subprocess.run([str(SCRIPT), "check", "lib/version.js", "--dynamic", "--format",
                           "json", "--fail-on", "never"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=300)
    doc = json.loads(done.stdout)
    [row] = doc["functions"]
    assert row["not_run"] is None and "divergent-outputs" in row["verdicts"], row
    [finding] = [f for f in doc["findings"] if f["code"] == "divergent-outputs"]
    assert 'new Version("1.2").compare("1.10"): -1 vs 1' in finding["message"]


#: A tag shaped like ``dedent``: common leading whitespace taken off the cooked strings (or
#: off a string it is called with).
DEDENT = """export function dedent(strings, ...values) {
  if (typeof strings === 'string') strings = [strings];
  const text = strings.reduce((out, s, i) => out + s + (i < values.length ? values[i] : ''), '');
  const lines = text.replace(/^\\n/, '').split('\\n');
  const pad = Math.min(...lines.filter((l) => l.trim()).map((l) => l.match(/^ */)[0].length));
  return lines.map((l) => l.slice(pad)).join('\\n').trimEnd();
}
"""
#: Its test: tagged templates with literal substitutions, one with a variable (no input),
#: and a plain call with a template literal.
DEDENT_TEST = """import { dedent } from '../src/dedent.js';

assert.equal(dedent`
  a
    b ${2}
  c\\t${"d"}`, 'a\\n  b 2\\nc\\td');
assert.equal(dedent`x${name}`, 'x?');
assert.equal(dedent(`  one\\n  two`), 'one\\ntwo');
"""


def _dedent_package(root: Path) -> Path:
    (root / ".git").mkdir()
    (root / "src").mkdir()
    (root / "test").mkdir()
    (root / "src" / "dedent.js").write_text(DEDENT)
    (root / "test" / "dedent.test.js").write_text(DEDENT_TEST)
    return root / "src" / "dedent.js"


def test_a_tagged_template_of_literals_is_an_input_as_the_tag_receives_it(
        tmp_path: Path) -> None:
    path = _dedent_package(tmp_path)
    context = js_module_view(DEDENT, path, tmp_path).context("dedent")
    calls = literal_calls(context, "dedent")
    strings = {"$": "template", "v": ["\n  a\n    b ", "\n  c\t", ""],
               "raw": ["\n  a\n    b ", "\n  c\\t", ""]}
    assert [(c.args, c.where) for c in calls] == [
        ((strings, 2, "d"), "test/dedent.test.js:3"),
        (("  one\n  two",), "test/dedent.test.js:8")]
    vs = VersionSet(task_id="t", versions=[Version(code=DEDENT)], language="javascript",
                    entry_point="dedent", module=context)
    labels = [c.label for c in collect_js_inputs(vs, scaling=False).cases]
    assert labels == ['dedent`\n  a\n    b ${2}\n  c\\t${"d"}`', 'dedent("  one\\n  two")']


def test_a_tagged_template_runs_with_a_frozen_strings_array_and_its_raw(
        node_sandboxed: object, tmp_path: Path) -> None:
    """The strings array a version's tag receives is the one Node gives: frozen, an array,
    its ``raw`` frozen and not enumerable, a cooked string ``undefined`` where its escape
    is not one."""
    path = _dedent_package(tmp_path)
    context = js_module_view(DEDENT, path, tmp_path).context("dedent")
    [call, plain] = literal_calls(context, "dedent")
    test = TestCase("call", args=call.args, name="tagged")
    probe = ("export function dedent(strings, ...values) { return [Object.isFrozen(strings), "
             "Array.isArray(strings), Object.isFrozen(strings.raw), Object.keys(strings), "
             "Object.getOwnPropertyDescriptor(strings, 'raw').enumerable, strings.raw, values]; }")
    result = JAVASCRIPT.run(probe, [test], "dedent", module=context)
    assert result.status == "ok", result.detail
    assert json.loads(result.tests[0].output or "") == [
        True, True, True, ["0", "1", "2"], False, ["\n  a\n    b ", "\n  c\\t", ""], [2, "d"]]
    real = JAVASCRIPT.run(DEDENT, [test, TestCase("call", args=plain.args, name="plain")],
                          "dedent", module=context)
    assert [json.loads(t.output or "") for t in real.tests] == ["a\n  b 2\nc\td", "one\ntwo"]
    bad = {"$": "template", "v": [{"$": "undefined"}], "raw": ["\\unicode"]}
    shown = JAVASCRIPT.run("function dedent(s) { return [s[0], s.raw[0]]; }",
                           [TestCase("call", args=(bad,), name="bad")], "dedent")
    assert json.loads(shown.tests[0].output or "") == [{"$": "undefined"}, "\\unicode"]


#: decamelize 6.0.1 (``tests/fixtures/repos/decamelize``): a module helper, a default
#: export, and its ava tests, whose calls with options come after twenty without.
DECAMELIZE = Path(__file__).resolve().parents[2] / "fixtures" / "repos" / "decamelize"
#: The real function written otherwise, and one that drops the short-text case (and
#: Unicode letters).
DECAMELIZE_REWRITE = """export default function decamelize(text, {separator = '_',
\tpreserveConsecutiveUppercase = false} = {}) {
\tif (typeof text !== 'string' || typeof separator !== 'string') {
\t\tthrow new TypeError('The `text` and `separator` arguments should be of type `string`');
\t}
\tif (text.length < 2) {
\t\treturn preserveConsecutiveUppercase ? text : text.toLowerCase();
\t}
\tconst split = text.replace(/([\\p{Lowercase_Letter}\\d])(\\p{Uppercase_Letter})/gu,
\t\t`$1${separator}$2`);
\tif (preserveConsecutiveUppercase) {
\t\treturn handlePreserveConsecutiveUppercase(split, separator);
\t}
\treturn split.replace(/(\\p{Uppercase_Letter})(\\p{Uppercase_Letter}\\p{Lowercase_Letter}+)/gu,
\t\t`$1${separator}$2`).toLowerCase();
}
"""
DECAMELIZE_WRONG = """export default function decamelize(text, {separator = '_',
\tpreserveConsecutiveUppercase = false} = {}) {
\tconst split = text.replace(/([a-z\\d])([A-Z])/g, `$1${separator}$2`);
\tif (preserveConsecutiveUppercase) {
\t\treturn handlePreserveConsecutiveUppercase(split, separator);
\t}
\treturn split.replace(/([A-Z])([A-Z][a-z]+)/g, `$1${separator}$2`).toLowerCase();
}
"""


def test_later_calls_of_a_long_test_file_are_inputs_too(node_sandboxed: object,
                                                        tmp_path: Path) -> None:
    """Every call the test file grades is taken (32, past the bound of 16 on calls no
    test grades), so the options the later tests pass are inputs, and ``check`` parts the
    wrong version on one of them."""
    (tmp_path / ".git").mkdir()
    for name in ("index.js", "test.js", "package.json"):
        (tmp_path / name).write_text((DECAMELIZE / name).read_text())
    index = (tmp_path / "index.js").read_text()
    context = js_module_view(index, tmp_path / "index.js", tmp_path).context("decamelize")
    calls = literal_calls(context, "decamelize")
    assert len(calls) == 32 > MAX_CALLS and calls[0].where == "test.js:13"
    assert all(c.expectation is not None for c in calls) and calls.graded_left_out == 0
    assert sum(len(c.args) == 2 for c in calls) >= 6  # options: the later tests
    real = index[index.index("export default"):]
    (tmp_path / "versions.json").write_text(json.dumps([real, DECAMELIZE_REWRITE,
                                                        DECAMELIZE_WRONG]))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    subprocess.run([str(SCRIPT), "sample", "index.js", "-f", "decamelize", "--from",
                    "versions.json", "-q"], check=True, env=env, cwd=tmp_path)
    done = subprocess.run([str(SCRIPT), "check", "index.js", "--dynamic", "--format", "json",
                           "--fail-on", "never"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300)
    doc = json.loads(done.stdout)
    [finding] = [f for f in doc["findings"] if f["code"] == "divergent-outputs"]
    assert finding["versions"] == [0, 2]
    assert 'decamelize("thisHasSpecialCharactersLikeČandŠ", {"separator": " "})' in \
        finding["message"]  # a later test's options


def test_a_namespaced_class_s_test_makes_its_instance_through_the_namespace(
        tmp_path: Path) -> None:
    """``new Geo.Plane.Box(2).volume()`` in a test is a call of ``Geo.Plane.Box.volume`` on
    the instance it makes; a ``Box`` of another namespace is not."""
    (tmp_path / "test").mkdir()
    path = tmp_path / "geo.ts"
    path.write_text("namespace Geo.Plane {\n  export class Box {\n"
                    "    constructor(public side: number) {}\n"
                    "    volume(): number { return this.side ** 3; }\n  }\n}\n")
    (tmp_path / "test" / "geo.test.ts").write_text(
        "expect(new Geo.Plane.Box(2).volume()).toBe(8);\n"
        "expect(new Plane.Box(3).volume()).toBe(27);\n"
        "expect(new Other.Box(4).volume()).toBe(64);\n")
    context = js_module_view(path.read_text(), path, tmp_path).context(
        "Geo.Plane.Box.volume", "method")
    calls = literal_calls(context, "volume")
    assert [c.receiver for c in calls] == [(2,), (3,), None]


def test_only_a_test_that_imports_the_function_from_its_file_grades(tmp_path: Path) -> None:
    """A test of another package's ``slug`` asserts what another function gives: an input
    only; a test that requires ``../index`` grades."""
    path = _package(tmp_path)
    (tmp_path / "other.test.js").write_text(
        "import { slug } from 'slugs';\n\ntest('x', () => { expect(slug('A B')).toBe('a_b'); });\n")
    (tmp_path / "lib" / "slug.test.js").write_text(
        "const slug = require('../index');\n\n"
        "test('x', () => {\n  expect(slug('C D')).toBe('c-d');\n});\n")
    context = js_module_view(INDEX, path, tmp_path).context("slug")
    said = {c.args: c.expectation.expected if c.expectation else None
            for c in literal_calls(context, "slug") if c.where.endswith(("other.test.js:3",
                                                                          "slug.test.js:4"))}
    assert said == {("A B",): None, ("C D",): "c-d"}
    from codequorum.behaviour.runtimes.js_callers import imports_function
    from codequorum.core.parsing import parse

    root = parse("import { fmt as f } from './fmt.js';\nimport def from '../src';\n",
                 "typescript").root_node
    assert imports_function(root, "test/a.test.ts", "test/fmt.ts", "f")
    assert not imports_function(root, "test/a.test.ts", "test/fmt.ts", "fmt")
    assert imports_function(root, "test/a.test.ts", "src/index.ts", "def")
    # a folder's index gathering the module's file (ufo's tests import from "../src")
    assert imports_function(root, "test/a.test.ts", "src/utils.ts", "def")
    assert imports_function(root, "test/a.test.ts", "src/url/parse.ts", "def")
    assert not imports_function(root, "test/a.test.ts", "lib/utils.ts", "def")
    up = parse("import { f } from '..';\nimport { g } from '../../x';\n",
               "typescript").root_node
    assert not imports_function(up, "test/a.test.ts", "src/utils.ts", "f")


def test_a_test_importing_the_folder_grades_each_key_of_its_table(tmp_path: Path) -> None:
    """As ufo's tests: ``import { clean } from "../src"`` (an index gathering ``utils.ts``),
    a table of input -> output inside the ``describe`` and a ``for``-``in`` over it; each
    key is a graded call, its value the expected one."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "test").mkdir()
    utils = tmp_path / "src" / "utils.ts"
    utils.write_text("export function clean(input = ''): string { return input; }\n")
    (tmp_path / "src" / "index.ts").write_text("export * from './utils';\n")
    (tmp_path / "test" / "clean.test.ts").write_text(
        'import { describe, expect, test } from "vitest";\nimport { clean } from "../src";\n\n'
        'describe("clean", () => {\n  const tests = {\n    "//a//": "/a/",\n    "b": "b",\n  };\n'
        "  for (const input in tests) {\n    test(input, () => {\n"
        "      expect(clean(input)).toBe(tests[input]);\n    });\n  }\n"
        '  test("none", () => { expect(clean()).toBe(""); });\n});\n')
    context = js_module_view(utils.read_text(), utils, tmp_path).context("clean")
    said = [(c.args, c.expectation.expected if c.expectation else None)
            for c in literal_calls(context, "clean")]
    assert said == [(("//a//",), "/a/"), (("b",), "b"), ((), "")]


def test_a_literal_a_test_holds_in_a_name_is_the_calls_argument_and_expected_value(
        tmp_path: Path) -> None:
    """``const input = 'Foo Bar'; const expected = 'foo-bar';`` then
    ``expect(slug(input)).toBe(expected)``: graded, as if written in the call."""
    path = _package(tmp_path)
    (tmp_path / "names.test.js").write_text(
        "import slug from './index.js';\n\ntest('x', () => {\n  const input = 'Foo Bar';\n"
        "  const expected = 'foo-bar';\n  expect(slug(input)).toBe(expected);\n"
        "  let other = '-';\n  other = 'A_b';\n  expect(slug(other)).toBe('a-b');\n});\n")
    context = js_module_view(INDEX, path, tmp_path).context("slug")
    said = [(c.args, c.expectation.expected if c.expectation else None)
            for c in literal_calls(context, "slug") if c.where.startswith("names.test")]
    assert said == [(("Foo Bar",), "foo-bar"), (("A_b",), "a-b")]


def test_a_rows_array_unpacked_in_the_test_and_a_table_as_const_grade(tmp_path: Path) -> None:
    """ufo's ``hasProtocol`` tests: a table holding ``String.raw`...``` (a value, not a call
    that changes anything), each row's ``out`` unpacked, ``const [a, b] = t.out``; and a
    table written ``[...] as const``."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "test").mkdir()
    utils = tmp_path / "src" / "utils.ts"
    utils.write_text("export function has(input: string, strict = false): boolean {\n"
                     "  return strict ? input.startsWith('/') : input.includes('/');\n}\n")
    (tmp_path / "src" / "index.ts").write_text("export * from './utils';\n")
    (tmp_path / "test" / "has.test.ts").write_text(
        'import { describe, expect, test } from "vitest";\nimport { has } from "../src";\n\n'
        'describe("has", () => {\n  const tests = [\n    { input: "/a", out: [true, true] },\n'
        "    { input: String.raw`a\\/b`, out: [true, false] },\n  ];\n"
        "  for (const t of tests) {\n    test(t.input.toString(), () => {\n"
        "      const [loose, strict] = t.out;\n      expect(has(t.input)).toBe(loose);\n"
        "      expect(has(t.input, true)).toBe(strict);\n    });\n  }\n});\n\n"
        'const MORE = [{ input: "x", out: false }] as const;\n'
        "for (const t of MORE) {\n"
        "  test(t.input, () => { expect(has(t.input)).toBe(t.out); });\n}\n")
    context = js_module_view(utils.read_text(), utils, tmp_path).context("has")
    said = [(c.args, c.expectation.expected if c.expectation else None)
            for c in literal_calls(context, "has")]
    assert said == [(("/a",), True), (("a\\/b",), True), (("/a", True), True),
                    (("a\\/b", True), False), (("x",), False)]


def test_a_row_spread_into_the_call_and_a_copied_result_grade(tmp_path: Path) -> None:
    """``for (const row of cases) expect(slug(...row)).toBe(...)``: each row's items are the
    call's arguments; ``structuredClone(slug(x))`` compared is ``slug(x)`` compared; a spread
    of what is not a literal array leaves the call out."""
    path = _package(tmp_path)
    (tmp_path / "rows.test.js").write_text(
        "import slug from './index.js';\n\nconst cases = [['Foo Bar'], ['-', 'extra']];\n"
        "test('rows', () => {\n  for (const row of cases) {\n"
        "    expect(slug(...row)).toBeTruthy();\n"
        "  }\n  expect(slug(...['A_b'])).toBe('a-b');\n"
        "  assert.deepStrictEqual(structuredClone(slug('X Y')), 'x-y');\n"
        "  expect(slug(...someRows)).toBe('');\n});\n")
    context = js_module_view(INDEX, path, tmp_path).context("slug")
    said = [(c.args, c.expectation.expected if c.expectation else None)
            for c in literal_calls(context, "slug") if c.where.startswith("rows.test")]
    # the first row's bare call is the package test's ``slug('Foo Bar')``, read there
    # first; ``toBeTruthy`` of each row is said of ``!!(slug(...))`` (the row written in)
    assert said == [(("Foo Bar",), True), (("-", "extra"), None), (("-", "extra"), True),
                    (("A_b",), "a-b"), (("X Y",), "x-y")]
    wrapped = [c.wrapped[0] for c in literal_calls(context, "slug") if c.wrapped]
    assert wrapped == ['!!(slug("Foo Bar"))', '!!(slug("-", "extra"))']


def _tested(root: Path, name: str, source: str, entry: str, test: str) -> ModuleContext:
    """The context of ``entry`` in a checkout holding ``name``.js (``source``) and its test
    ``name``.test.js (``test``)."""
    (root / ".git").mkdir()
    (root / f"{name}.js").write_text(source)
    (root / f"{name}.test.js").write_text(test)
    return js_module_view(source, root / f"{name}.js", root).context(entry)


def _ran(context: ModuleContext, codes: list[str], entry: str) -> DynamicReport:
    """The JavaScript versions ``codes`` of ``entry`` run in ``context`` on its inputs (no
    drawn ones, no scaling series)."""
    vs = VersionSet.from_codes("t", codes, language="javascript", entry_point=entry)
    vs.module = context
    return run_dynamic(vs, DynamicOptions(hypothesis_examples=0, scaling=False))


RANGE = "export function* range(n) {\n  for (let i = 0; i < n; i++) yield i;\n}\n"


def test_an_assertion_on_an_expression_wrapping_the_call_grades_it_run_whole(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``expect([...range(3)]).toEqual([0, 1, 2])``, ``assert.strictEqual(Array.from(
    range(2)).length, 2)``: each runs whole in the module, graded, beside the bare call; the
    version that yields one item too many fails both, the one returning an array passes as
    the test would; a wrapper reading a name of the test's own is no input."""
    context = _tested(tmp_path, "range", RANGE, "range", (
        "import { range } from './range.js';\ntest('range', () => {\n"
        "  expect([...range(3)]).toEqual([0, 1, 2]);\n"
        "  assert.strictEqual(Array.from(range(2)).length, 2);\n"
        "  expect([...range(1)].concat(extra)).toEqual([0]);\n});\n"))
    found = [(c.args, c.wrapped[0] if c.wrapped else None,
              c.expectation.expected if c.expectation else None)
             for c in literal_calls(context, "range")]
    assert found == [((3,), None, None), ((3,), "[...range(3)]", [0, 1, 2]),
                     ((2,), None, None), ((2,), "Array.from(range(2)).length", 2),
                     ((1,), None, None), ((1,), "[...range(1)].concat(extra)", [0])]
    wrong = RANGE.replace("i < n", "i <= n")
    array = "export function range(n) {\n  return [...Array(n).keys()];\n}\n"
    report = _ran(context, [RANGE, wrong, array], "range")
    assert [i["label"] for i in report.inputs] == [
        "range(3)", "[...range(3)]", "range(2)", "Array.from(range(2)).length", "range(1)"]
    assert [[p for p in row] for row in report.passes] == [
        [None, True, None, True, None], [None, False, None, False, None],
        [None, True, None, True, None]]
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0, 1.0]


EMAIL = "export function isEmail(s) {\n  return /^[^@\\s]+@[^@\\s]+\\.[a-z]+$/i.test(s);\n}\n"


def test_matchers_other_than_equality_grade_through_what_they_say(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``expect(isEmail('a@b.co')).toBeTruthy()``, ``toBeFalsy()`` over a table's rows,
    ``assert.ok``: each runs as ``!!(isEmail(...))`` in the module, graded ``true`` or
    ``false``; the version that only looks for ``@`` fails the rows it lets through."""
    context = _tested(tmp_path, "email", EMAIL, "isEmail", (
        "import { isEmail } from './email.js';\n"
        "test('yes', () => {\n  expect(isEmail('a@b.co')).toBeTruthy();\n"
        "  assert.ok(isEmail('x.y@z.org'));\n});\n"
        "test.each(['a@b', '@b.co', 'a b@c.de'])('no %s', (s) => {\n"
        "  expect(isEmail(s)).toBeFalsy();\n});\n"))
    loose = "export function isEmail(s) {\n  return s.includes('@');\n}\n"
    report = _ran(context, [EMAIL, loose], "isEmail")
    graded = [(i["label"], [row[k] for row in report.passes])
              for k, i in enumerate(report.inputs) if i["label"].startswith("!!")]
    assert graded == [('!!(isEmail("a@b.co"))', [True, True]),
                      ('!!(isEmail("x.y@z.org"))', [True, True]),
                      ('!!(isEmail("a@b"))', [True, False]),
                      ('!!(isEmail("@b.co"))', [True, False]),
                      ('!!(isEmail("a b@c.de"))', [True, False])]
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.4]


PARSE = ("export function parse(s) {\n  const [k, v] = s.split('=');\n"
         "  return { key: k, value: v, parts: [k, v] };\n}\n")


def test_to_match_object_grades_the_keys_it_names(node_sandboxed: object,
                                                  tmp_path: Path) -> None:
    """``expect(parse('a=1')).toMatchObject({ key: 'a', parts: ['a', '1'] })``: every key
    named holds an equal value (arrays item by item); a version that swaps key and value
    fails, one that adds a key passes, as Jest would have it."""
    context = _tested(tmp_path, "parse", PARSE, "parse", (
        "import { parse } from './parse.js';\ntest('p', () => {\n"
        "  expect(parse('a=1')).toMatchObject({ key: 'a', parts: ['a', '1'] });\n});\n"))
    swapped = PARSE.replace("{ key: k, value: v, parts: [k, v] }",
                            "{ key: v, value: k, parts: [v, k] }")
    more = PARSE.replace("parts: [k, v] }", "parts: [k, v], extra: true }")
    report = _ran(context, [PARSE, swapped, more], "parse")
    labels = [i["label"] for i in report.inputs]
    assert labels == ['parse("a=1")', "parse(\"a=1\") matching { key: 'a', parts: ['a', '1'] }"]
    assert [row[1] for row in report.passes] == [True, False, True]


def test_a_helper_of_the_test_file_called_with_literals_gives_a_call_per_call(
        tmp_path: Path) -> None:
    """``function check(input, want) { expect(slug(input)).toBe(want); }`` then
    ``check('Foo Bar', 'foo-bar')``: each call of the helper binds its parameters, a graded
    call of the function; an arrow helper's too; a call giving a name no literal holds is
    left out, and so is one made after something that may change what the function
    gives."""
    path = _package(tmp_path)
    (tmp_path / "helper.test.js").write_text(
        "import slug from './index.js';\n\nfunction check(input, want) {\n"
        "  expect(slug(input)).toBe(want);\n}\nconst ok = (s) => expect(slug(s)).toBeTruthy();\n"
        "test('x', () => {\n  check('A_b', 'a-b');\n  check('-', '');\n  check(name, 'x');\n"
        "  ok('Q r');\n});\ntest('y', () => {\n  setLocale('fr');\n  check('Z z', 'zz');\n});\n")
    context = js_module_view(INDEX, path, tmp_path).context("slug")
    said = [(c.args, c.wrapped[0] if c.wrapped else None,
             c.expectation.expected if c.expectation else None)
            for c in literal_calls(context, "slug") if c.where.startswith("helper.test")]
    assert said == [(("A_b",), None, "a-b"), (("-",), None, ""), (("Q r",), None, None),
                    (("Q r",), '!!(slug("Q r"))', True)]


MAKE = ("export function make(name) {\n"
        "  return { id: `u-${name.length}`, name, tags: ['new', name] };\n}\n")


def test_an_expected_value_holding_asymmetric_matchers_grades_as_jest_compares_it(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``expect(make('ann')).toEqual({ id: expect.any(String), name: 'ann', tags:
    expect.arrayContaining(['new']) })``: the version whose ``id`` is a number, and the
    one that drops a tag, fail; the real one passes."""
    context = _tested(tmp_path, "make", MAKE, "make", (
        "import { make } from './make.js';\ntest('m', () => {\n"
        "  expect(make('ann')).toEqual({ id: expect.any(String), name: 'ann',\n"
        "    tags: expect.arrayContaining(['new']) });\n"
        "  expect(make('bo')).toEqual(expect.objectContaining({ name: 'bo' }));\n});\n"))
    numbered = MAKE.replace("`u-${name.length}`", "name.length")
    untagged = MAKE.replace("['new', name]", "[name]")
    report = _ran(context, [MAKE, numbered, untagged], "make")
    graded = [(i["label"], [row[k] for row in report.passes])
              for k, i in enumerate(report.inputs) if "equal to" in i["label"]]
    assert graded == [
        ('make("ann") equal to { id: expect.any(String), name: \'ann\', tags: '
         "expect.arrayContaining(['new']) }", [True, False, False]),
        ("make(\"bo\") equal to expect.objectContaining({ name: 'bo' })", [True, True, True])]


def test_a_row_item_with_a_default_reads_as_javascript_defaults_it(tmp_path: Path) -> None:
    """node-semver's tables: ``const loose = tuple[2] || false`` of a row of two is the
    default, of a row of three its item; ``??`` keeps every value but null and undefined."""
    major = "export const major = (a, loose, n) => 1;\n"
    context = _tested(tmp_path, "major", major, "major", (
        "import { major } from './major.js';\ntest('t', (t) => {\n"
        "  [['1.2.3', 1], ['=2.0.0', 2, true], ['3.0.0', 3, 0, null]].forEach((tuple) => {\n"
        "    const loose = tuple[2] || false\n"
        "    const n = tuple[3] ?? 7\n"
        "    t.equal(major(tuple[0], loose, n), tuple[1])\n"
        "  })\n"
        "  ;[['4.0.0', 4]].forEach((row) => t.equal(major(row[0], row[2] || row[5]), 4))\n"
        "  t.end()\n});\n"))
    found = [(c.args, c.expectation.expected if c.expectation else None)
             for c in literal_calls(context, "major")]
    # a default that is itself missing reads nothing: that call is no input
    assert found == [(("1.2.3", False, 7), 1), (("=2.0.0", True, 7), 2),
                     (("3.0.0", False, 7), 3)]


def test_a_method_of_the_same_name_on_a_string_or_a_local_is_not_the_function(
        tmp_path: Path) -> None:
    """radash's ``trim``: a test's ``input.trim()`` is JavaScript's own ``String.prototype.trim``
    and the module's ``s.trim()`` a string's; neither is an input, nor does the test's
    assertion on it grade the module's ``trim``. Through the namespace the test imports
    from the module (``_.trim``), through ``require`` of it and through ``exports``, it is."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    source = ("export const trim = (str: string, chars = ' ') => str.split(chars).join('');\n"
              "export const title = (s: string) => s.trim().toUpperCase();\n")
    module = tmp_path / "src" / "string.ts"
    module.write_text(source)
    (tmp_path / "src" / "tests").mkdir()
    (tmp_path / "src" / "tests" / "string.test.ts").write_text(
        "import * as _ from '..';\nimport { other } from './helpers';\n\n"
        "test('trim', () => {\n  const input = '  hello  ';\n"
        "  expect(input.trim()).toBe('hello');\n"
        "  expect(other.trim('x')).toBe('y');\n"
        "  expect(_.trim('__a__', '_')).toBe('a');\n"
        "  expect(require('../string').trim('-b-', '-')).toBe('b');\n"
        "  expect(exports.trim('c', 'c')).toBe('');\n});\n")
    context = js_module_view(source, module, tmp_path).context("trim")
    said = [(c.args, c.where, c.expectation.expected if c.expectation else None)
            for c in literal_calls(context, "trim")]
    assert said == [(("__a__", "_"), "src/tests/string.test.ts:8", "a"),
                    (("-b-", "-"), "src/tests/string.test.ts:9", "b"),
                    (("c", "c"), "src/tests/string.test.ts:10", "")]


def test_every_assertion_of_a_long_test_file_grades_past_the_bound_of_bare_calls(
        tmp_path: Path) -> None:
    """decamelize's ``test.js``: 18 ``t.is`` lines, a bug only the last shows
    (``'thisHasSpecialCharactersLikeČandŠ'``); each is a graded call, none left out."""
    path = _package(tmp_path)
    lines = "".join(f"\tt.is(slug('Case {i}'), 'case-{i}');\n" for i in range(17))
    (tmp_path / "test.js").write_text(
        "import test from 'ava';\nimport slug from './index.js';\n\ntest('main', t => {\n"
        + lines + "\tt.is(slug('LikeČandŠ'), 'like-čand-š');\n});\n")
    context = js_module_view(INDEX, path, tmp_path).context("slug")
    calls = literal_calls(context, "slug")
    graded = [c.args[0] for c in calls if c.expectation is not None]
    assert graded == [f"Case {i}" for i in range(17)] + ["LikeČandŠ"]
    assert calls.graded_left_out == 0
