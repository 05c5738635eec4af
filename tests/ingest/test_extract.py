"""Answer extraction: fences, prose, methods, parse checks, real CodeGen completions."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codequorum.ingest.extract import extract_from_code, extract_function, unfenced

FUNC = "def add(a, b):\n    return a + b\n"


def test_fenced_python_with_prose() -> None:
    answer = f"Sure! Here it is:\n\n```python\n{FUNC}```\n\nThis adds two numbers."
    result = extract_function(answer, "python", "add")
    assert result.ok and result.code == FUNC and result.reason is None


@pytest.mark.parametrize("tag", ["py", "", "python3", "Python"])
def test_other_fence_tags(tag: str) -> None:
    result = extract_function(f"```{tag}\n{FUNC}```", "python", "add")
    assert result.code == FUNC


def test_tilde_fence_and_indented_fence() -> None:
    assert extract_function(f"~~~python\n{FUNC}~~~", "python", "add").code == FUNC
    indented = "1. The code:\n   ```python\n   def add(a, b):\n       return a + b\n   ```\n"
    assert extract_function(indented, "python", "add").code == FUNC


def test_first_block_that_defines_the_function_wins() -> None:
    answer = (
        "```bash\npip install nothing\n```\n"
        "```python\nprint(add(1, 2))\n```\n"
        f"```python\n{FUNC}```\n"
        "```python\ndef add(a, b):\n    return b + a\n```\n"
    )
    assert extract_function(answer, "python", "add").code == FUNC


def test_bare_answer_with_prose_around_it() -> None:
    answer = f"Here is the function you asked for:\n{FUNC}\nIt returns the sum of a and b."
    result = extract_function(answer, "python", "add")
    assert result.code == FUNC


def test_bare_code_only() -> None:
    answer = "import math\n\n\ndef add(a, b):\n    return math.fsum([a, b])\n"
    result = extract_function(answer, "python", "add")
    assert result.code == "def add(a, b):\n    return math.fsum([a, b])\n"
    assert result.imports == ("import math",)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("I'm sorry, I cannot help with that.", "no code in the answer"),
        ("", "no code in the answer"),
        ("```python\n\n```", "no code in the answer"),
        ("```python\ndef sub(a, b):\n    return a - b\n```", "does not define `add`"),
        (
            "```python\nimport os\n\n\ndef add(a, b):\n    return (a +\n```",
            "code does not parse: line 5 ('(' was never closed)",
        ),
        (
            "```python\ndef add(a, b)\n    return a + b\n```",
            "code does not parse: line 1 (expected ':')",
        ),
    ],
)
def test_rejections_say_why(answer: str, reason: str) -> None:
    result = extract_function(answer, "python", "add")
    assert not result.ok and result.code is None
    assert result.reason == reason


def test_trailing_junk_after_the_function_does_not_matter() -> None:
    answer = f"```python\n{FUNC}\n\nassert add(1, 2) == 3\nassert add(0.1, 0.\n```"
    assert extract_function(answer, "python", "add").code == FUNC


def test_cut_off_answer_without_closing_fence() -> None:
    whole = extract_function(f"Here:\n```python\n{FUNC}", "python", "add")
    assert whole.code == FUNC
    cut = extract_function("Here:\n```python\ndef add(a, b):\n    return (a +", "python", "add")
    assert cut.reason == "code does not parse: line 2 ('(' was never closed)"


def test_method_inside_a_class_is_extracted_and_dedented() -> None:
    answer = (
        "```python\nclass Stack:\n    def __init__(self):\n        self.items = []\n\n"
        "    @staticmethod\n    def helper():\n        return 1\n\n"
        "    def push(self, item):\n        self.items.append(item)\n        return self\n```"
    )
    result = extract_function(answer, "python", "Stack.push")
    assert result.code == ("def push(self, item):\n    self.items.append(item)\n    return self\n")
    decorated = extract_function(answer, "python", "Stack.helper")
    assert decorated.code == "@staticmethod\ndef helper():\n    return 1\n"


def test_method_given_on_its_own_or_indented() -> None:
    alone = "```python\ndef push(self, item):\n    self.items.append(item)\n```"
    assert extract_function(alone, "python", "Stack.push").code == (
        "def push(self, item):\n    self.items.append(item)\n"
    )
    indented = "```python\n    def push(self, item):\n        self.items.append(item)\n```"
    assert extract_function(indented, "python", "Stack.push").code == (
        "def push(self, item):\n    self.items.append(item)\n"
    )


def test_nested_function_of_another_name_is_not_a_match() -> None:
    answer = (
        "```python\ndef outer():\n    def add(a, b):\n        return a + b\n    return add\n```"
    )
    assert extract_function(answer, "python", "add").reason == "does not define `add`"


def test_decorators_and_async_kept() -> None:
    code = "@functools.cache\nasync def add(a, b):\n    return a + b\n"
    assert extract_function(f"```python\n{code}```", "python", "add").code == code


def test_javascript_and_rust() -> None:
    js = "function add(a, b) {\n  return a + b;\n}\n"
    result = extract_function(f"```js\n{js}```\nDone.", "javascript", "add")
    assert result.code == js
    rust = "fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
    assert extract_function(f"```rust\n{rust}```", "rust", "add").code == rust
    # A Python block is not read as JavaScript.
    assert not extract_function(f"```python\n{FUNC}```", "javascript", "add").ok


def test_unknown_language_is_a_reason_not_a_crash() -> None:
    result = extract_function(f"```\n{FUNC}```", "cobol", "add")
    assert not result.ok and "unknown language" in (result.reason or "")


def test_extract_from_plain_code() -> None:
    code = f"import os\n\nX = 1\n\nfor i in range(3):\n    pass\n\n{FUNC}\nprint(add(1, 2))\n"
    assert extract_from_code(code, "python", "add").code == FUNC
    assert extract_from_code("   \n", "python", "add").reason == "no code"


def test_real_codegen_completions(shared_dir: Path) -> None:
    """Every accepted version compiles and defines the entry point; rejections are parse
    failures of the function itself (checked with Python's own parser)."""
    path = shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()[:6]]
    accepted = rejected = 0
    for row in rows:
        name = row["entry_point"]
        for version in row["samples"][:40]:
            code = row["prompt"] + version
            result = extract_function(f"Here you go:\n```python\n{code}```\n", "python", name)
            if result.ok:
                accepted += 1
                assert result.code is not None
                tree = ast.parse(result.code)
                assert [type(n).__name__ for n in tree.body] == ["FunctionDef"]
                assert isinstance(tree.body[0], ast.FunctionDef) and tree.body[0].name == name
            else:
                rejected += 1
                assert (result.reason or "").startswith("code does not parse: line ")
    assert accepted > 200 and accepted + rejected == 240


def test_thinking_sections_are_ignored() -> None:
    draft = "def add(a, b):\n    return 0  # draft\n"
    answer = f"<think>\nMaybe:\n```python\n{draft}```\nNo, better:\n</think>\n```python\n{FUNC}```"
    assert extract_function(answer, "python", "add").code == FUNC


_PROSE = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="`~<"),
    max_size=200,
)


@settings(max_examples=60, deadline=None)
@given(before=_PROSE, after=_PROSE)
def test_prose_around_a_fence_never_changes_the_result(before: str, after: str) -> None:
    answer = f"{before}\n```python\n{FUNC}```\n{after}"
    assert extract_function(answer, "python", "add").code == FUNC


def test_prose_only_answer_in_other_languages_is_no_code() -> None:
    answer = "I'm sorry, I can't write that function (it needs more context)."
    assert extract_function(answer, "javascript", "add").reason == "no code in the answer"
    bare = "function add(a, b) {\n  return a + b;\n}\n"
    assert extract_function(bare, "javascript", "add").code == bare
    broken = "function add(a, b) {\n  return a + ;\n"
    assert (extract_function(broken, "javascript", "add").reason or "").startswith(
        "code does not parse"
    )


def test_markdown_indented_code_block() -> None:
    answer = "Here it is:\n\n    def add(a, b):\n        return a + b\n\nHope this helps."
    assert extract_function(answer, "python", "add").code == FUNC


def test_a_javascript_method_given_alone_is_read_in_its_class() -> None:
    """A method as ``export`` writes it (semver's ``comparePre (other) { ... }``) imports
    back: read inside a class of its owner's name, its text kept as given."""
    method = "comparePre (other) {\n  return this.prerelease.length - other.length\n}\n"
    got = extract_from_code(method, "javascript", "SemVer.comparePre")
    assert got.ok and got.code == method
    typed = "static make(n: number): number { return n }\n"
    assert extract_from_code(typed, "typescript", "A.make").code == typed
    assert not extract_from_code(method, "javascript", "SemVer.compareMain").ok
    assert not extract_from_code("comparePre (other) {", "javascript", "SemVer.comparePre").ok
    assert not extract_from_code(method, "javascript", "comparePre").ok  # not a method name


def test_a_class_fields_arrow_function_given_alone_keeps_its_name() -> None:
    """``double = (n) => n * 2;`` reads alone as an assignment of the arrow; as a version
    of ``Counter.double`` it is the class's field, name and all (the arrow alone put in the
    field's place would not parse). A ``function`` of that name is still the function."""
    field = "double = (n: number): number => n * 2;\n"
    got = extract_from_code(field, "typescript", "Counter.double")
    assert got.ok and got.code == "double = (n: number): number => n * 2\n"
    assert extract_from_code(field, "typescript", "double").code == \
        "(n: number): number => n * 2\n"  # a plain name: the assignment's function
    plain = "function double(n) {\n  return n * 2;\n}\n"
    assert extract_from_code(plain, "javascript", "Counter.double").code == plain


def test_an_objects_arrow_property_given_alone_is_its_function() -> None:
    """``double: (n) => n * 2,`` is read as a property of an object of its owner's name: the
    arrow, as the module's object holds it (the splice replaces the arrow alone)."""
    got = extract_from_code("double: (n) => n * 2,\n", "javascript", "utils.double")
    assert got.ok and got.code == "(n) => n * 2\n"
    assert not extract_from_code("double: (n) => n * 2,\n", "javascript", "utils.triple").ok


def test_a_version_given_as_a_chat_answer_is_its_fenced_code() -> None:
    answer = f"Here you go:\n```python\n{FUNC}```\nIt adds `a` and `b`."
    assert unfenced(answer, "python") == FUNC
    js = "```js\nconst add = (a, b) => a + b;\n```\nUse it as `add(1, 2)`."
    assert unfenced(js, "javascript") == "const add = (a, b) => a + b;\n"
    # the first block of the language that parses: not a shell block, not a broken one
    mixed = ("```bash\npip install x\n```\n```python\ndef add(a, b:\n```\n"
             f"Fixed:\n```python\n{FUNC}```")
    assert unfenced(mixed, "python") == FUNC


@pytest.mark.parametrize("code", [
    FUNC,  # code already: a benchmark completion stays byte for byte
    'def add(a, b):\n    """Use ```add(1, 2)```."""\n    return a + b\n',  # a fence in a string
    "```python\ndef add(a, b:\n```",  # no block parses
    "Sorry, ``` I cannot.",  # no block at all
])
def test_code_and_answers_without_usable_code_are_left_as_they_are(code: str) -> None:
    assert unfenced(code, "python") is None


def test_a_chat_answer_without_a_fence_is_its_code_without_the_prose() -> None:
    answer = f"Here is a version that adds them:\n\n{FUNC}\nIt returns the sum."
    assert unfenced(answer, "python") == FUNC
    # a completion cut short or with a stray line stays as it is: it starts with code
    assert unfenced(FUNC + "This is not code\n", "python") is None
    assert unfenced("Sorry, I cannot help with that.", "python") is None


def test_a_javascript_answer_without_a_fence_is_its_code_without_the_prose() -> None:
    code = "function add(a, b) {\n\treturn a + b;\n}\n"
    answer = f"Here is a version:\n\n{code}\nIt returns the sum of both."
    assert extract_function(answer, "javascript", "add").code == code
    assert unfenced(answer, "javascript") == code
    # code as given, a broken completion included, stays as it is
    assert unfenced(code, "javascript") is None
    assert unfenced("function add(a, b) {\n\treturn a +\n", "javascript") is None


HELPED_JS = ("const DIGITS = '0123456789abcdef';\n"
             "export function digit(d) { return DIGITS[d]; }\n"
             "export function toHex(n) {\n  return digit(n % 16);\n}\n"
             "console.log(toHex(255));\n")


def test_a_javascript_version_keeps_the_helpers_it_defines_and_drops_its_usage() -> None:
    result = extract_from_code(HELPED_JS, "javascript", "toHex")
    assert result.code == ("const DIGITS = '0123456789abcdef';\n\n"
                           "function digit(d) { return DIGITS[d]; }\n\n"
                           "function toHex(n) {\n  return digit(n % 16);\n}\n")


def test_a_typescript_answer_keeps_its_class_and_arrow_helpers() -> None:
    answer = ("Here:\n```ts\nclass Acc { total = 0; add(x: number) { this.total += x; } }\n"
              "const double = (x: number): number => x * 2;\n"
              "export const sum = (xs: number[]): number => {\n"
              "  const a = new Acc();\n  xs.forEach((x) => a.add(double(x)));\n"
              "  return a.total;\n};\n```\n")
    result = extract_function(answer, "typescript", "sum")
    assert result.ok and result.code is not None
    assert result.code.startswith("class Acc { total = 0;")
    assert "const double = (x: number): number => x * 2;\n\nconst sum = " in result.code


def test_a_python_version_keeps_its_helper_and_constant() -> None:
    code = ("import math\nSCALE = 2\n\ndef _half(x):\n    return x / SCALE\n\n"
            "def area(r):\n    return math.pi * _half(r) ** 2\n\nprint(area(1))\n")
    result = extract_from_code(code, "python", "area")
    assert result.imports == ("import math",)
    assert result.code == ("SCALE = 2\n\ndef _half(x):\n    return x / SCALE\n\n"
                           "def area(r):\n    return math.pi * _half(r) ** 2\n")


def test_a_version_in_its_namespace_keeps_the_helpers_the_namespace_defines() -> None:
    code = ("export namespace Text {\n  const SEP = '-';\n  const unused = 1;\n"
            "  export function slugify(s: string): string {\n"
            "    return s.split(' ').join(SEP);\n  }\n}\n")
    result = extract_from_code(code, "typescript", "Text.slugify")
    assert result.code == ("const SEP = '-';\n\nfunction slugify(s: string): string {\n"
                           "  return s.split(' ').join(SEP);\n}\n")


def test_a_method_is_kept_alone_without_the_helpers_around_its_class() -> None:
    code = "K = 2\n\nclass Stack:\n    def push(self, x):\n        return x * K\n"
    result = extract_from_code(code, "python", "Stack.push")
    assert result.code == "def push(self, x):\n    return x * K\n"


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_an_answer_that_is_only_a_fenced_block_is_its_code_in_javascript(language: str) -> None:
    """```` ```ts ```` ... ```` ``` ```` alone (or after ``Sure:``, a label) parses as
    JavaScript (tagged empty templates) and ran as a version that calls ``""``: JavaScript
    with a fence line is an answer."""
    code = "export const add = (a, b) => a + b;\n"
    tag = {"javascript": "js", "typescript": "ts"}[language]
    for answer in (f"```{tag}\n{code}```", f"\n```{language}\n{code}```\n",
                   f"```{tag}\n{code}```\n\n```{tag}\nconsole.log(add(1, 2));\n```",
                   f"Sure:\n\n```{tag}\n{code}```", f"```\n{code}```"):
        assert unfenced(answer, language) == code, answer
    # a template literal that holds a fence (escaped, as it must be) is code, as it is
    kept = "const doc = `\n\\`\\`\\`js\nx\n\\`\\`\\`\n`;\n"
    assert unfenced(kept, language) is None


#: A function whose docstring holds a fenced block, as mkdocs renders examples (humanize's
#: ``ordinal``): code, not a chat answer.
FENCED_DOCSTRING = '''def ordinal(value: int) -> str:
    """Converts an integer to its ordinal.

    Examples:
        ```pycon
        >>> ordinal(1)
        '1st'

        ```
    """
    return f"{value}th"
'''


def test_a_fence_inside_a_docstring_is_the_functions_not_an_answers() -> None:
    from codequorum.pipeline.session import normalize_version

    result = extract_function(FENCED_DOCSTRING, "python", "ordinal")
    assert result.ok and result.code == FENCED_DOCSTRING
    assert normalize_version(FENCED_DOCSTRING, "python", "ordinal") == FENCED_DOCSTRING
    js = "/**\n * ```js\n * f(1) // => 1\n * ```\n */\nfunction f(x) {\n  return x;\n}\n"
    assert extract_function(js, "javascript", "f").code == "function f(x) {\n  return x;\n}\n"
    bare = "/*\n```js\nf(1)\n```\n*/\nfunction f(x) {\n  return x;\n}\n"
    assert extract_function(bare, "javascript", "f").code == "function f(x) {\n  return x;\n}\n"
    answer = "Sure:\n```js\nfunction f(x) {\n  return x + 1;\n}\n```\n"
    assert extract_function(answer, "javascript", "f").code == (
        "function f(x) {\n  return x + 1;\n}\n")
