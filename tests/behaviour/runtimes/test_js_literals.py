"""Template literals read as JavaScript reads them: the cooked text of their escapes, the
raw text a tag receives, and a call's arguments, a tagged template's included."""

from __future__ import annotations

import pytest
from tree_sitter import Node

from codequorum.behaviour.runtimes.js_literals import (
    NotLiteral,
    call_arguments,
    cooked,
    literal,
    literal_text,
    parse_expression,
)


def _expr(text: str) -> Node:
    node = parse_expression(text)
    assert node is not None, text
    return node


def test_escapes_are_cooked_as_javascript_cooks_them() -> None:
    assert cooked(r"a\nb\tc\x41\u0042\u{43}\0\`\$\\") == "a\nb\tcABC\0`$\\"
    assert cooked("one\\\ntwo") == "onetwo"  # a line continuation
    assert cooked(r"\uD83D\uDE00 \q") == "\U0001F600 q"
    for bad in (r"\xZ", r"\u12", r"\u{110000}", r"\01", r"\7", r"\uD83D"):
        assert cooked(bad) is None, bad


def test_a_template_literal_is_its_cooked_text_and_a_substitution_none() -> None:
    assert literal(_expr(r"`a\n`")) == "a\n"
    with pytest.raises(NotLiteral):
        literal(_expr("`a${1}`"))


def test_a_tagged_template_gives_its_strings_array_then_its_values() -> None:
    args = call_arguments(_expr('tag`a\\n${1}b${[true, "x"]}`'))
    assert args == ({"$": "template", "v": ["a\n", "b", ""], "raw": ["a\\n", "b", ""]},
                    1, [True, "x"])
    assert call_arguments(_expr("tag``")) == ({"$": "template", "v": [""], "raw": [""]},)
    for text in ("tag`${x}`", "tag`${1}${f()}`"):
        with pytest.raises(NotLiteral):
            call_arguments(_expr(text))
    assert call_arguments(_expr("tag(`x\\ty`, 2)")) == ("x\ty", 2)


@pytest.mark.parametrize("text", ["0x" + "f" * 5000 + "n", "1" + "0" * 5000 + "n",
                                  "-0x" + "f" * 5000 + "n"])
def test_a_bigint_past_what_can_be_written_is_no_literal(text: str) -> None:
    """A workspace file's example may hold a 5,000-digit bigint: its text cannot be written
    (Python's int-to-text limit), and it cost the function its whole analysis; it is no
    input, and the literals beside it still are."""
    with pytest.raises(NotLiteral):
        literal(_expr(text))
    assert literal(_expr("[0x" + "f" * 16 + "n, 0xff, 12n]")) == [
        {"$": "bigint", "v": str(16 ** 16 - 1)}, 255, {"$": "bigint", "v": "12"}]


def test_a_number_past_a_double_is_infinity_as_javascript_reads_it() -> None:
    """``0xfff…`` of 5,000 digits and ``1e999`` are ``Infinity`` in JavaScript; held as a
    Python integer or float they could be neither compared nor sent to Node."""
    infinity = {"$": "number", "v": "Infinity"}
    assert literal(_expr("0x" + "f" * 5000)) == infinity
    assert literal(_expr("[1e999, -1e999, 0x20000000000000]")) == [
        infinity, {"$": "number", "v": "-Infinity"}, 2**53]


def test_arithmetic_of_number_literals_is_computed_as_javascript_does() -> None:
    from codequorum.behaviour.runtimes.js_literals import NotLiteral, literal, parse_expression

    def read(text: str) -> object:
        node = parse_expression(text)
        assert node is not None
        return literal(node)

    assert read("60 * 1000") == 60000
    assert read("1 / 4") == 0.25
    assert read("-7 % 3") == -1  # the dividend's sign, as JavaScript keeps it
    assert read("2 ** 10") == 1024
    assert read("'a' + 'b'") == "ab"
    chain = " + ".join(["1"] * 900)
    for text in ("1 / 0", "0 * -1", "2 ** 2000", "'a' - 1", "x * 2", "1 + '2'", "1 << 2", chain):
        try:
            read(text)
        except NotLiteral:
            continue
        raise AssertionError(text)


def test_a_key_written_twice_keeps_its_last_value() -> None:
    """HumanEval/95's ``{"a":"apple", 8:"banana", "a":"apple"}``: JavaScript has two keys,
    ``"8"`` and ``"a"``, not three entries."""
    node = parse_expression('({"a": "apple", 8: "banana", "a": "pear"})')
    assert node is not None
    assert literal(node) == {"$": "object", "v": [["8", "banana"], ["a", "pear"]]}


def test_a_text_is_a_literal_or_none() -> None:
    assert literal_text(" [1, 'a'] ") == ([1, "a"],)
    assert literal_text("null") == (None,)  # a literal that is None, told from no literal
    assert literal_text("f(1)") is None and literal_text("[1,") is None


def test_a_callbacks_typescript_types_are_blanked_and_javascript_kept() -> None:
    """A test of a ``.ts`` file passes ``(...items: number[]) => ...``: the sandbox compiles
    JavaScript, so its types are blanked (as whitespace); JavaScript is kept as written."""
    from codequorum.core.parsing import parse
    ts = parse("f((...items: number[]) => items.length, (a, b) => a < b);", "typescript")
    call = ts.root_node.named_children[0].named_children[0]
    assert call_arguments(call) == (
        {"$": "source", "v": "(...items          ) => items.length"},
        {"$": "source", "v": "(a, b) => a < b"})
    assert literal(_expr("function (a) { return a }")) == {
        "$": "source", "v": "function (a) { return a }"}


def test_a_callback_reading_a_name_of_its_own_place_is_no_literal() -> None:
    """``(x) => x === n`` of a test where ``n`` is the test's constant would raise on every
    version compiled alone: no input; its own parameters, locals and JavaScript's globals
    are fine."""
    with pytest.raises(NotLiteral):
        literal(_expr("(x) => x === n"))
    with pytest.raises(NotLiteral):
        call_arguments(_expr("splitWhen([1, 2], () => { counter += 1; return counter; })"))
    assert literal(_expr("({ a }, b) => Math.max(a, b)")) == {
        "$": "source", "v": "({ a }, b) => Math.max(a, b)"}


def test_what_a_bound_row_holds_is_read_through_members_and_subscripts() -> None:
    """``t.out``, ``t["out"]``, ``tests[input]``, ``row[1]``, ``.length`` of a bound value;
    a key it does not hold, or a name nothing binds, is no literal."""
    from codequorum.behaviour.runtimes.js_literals import NotLiteral, literal
    from codequorum.core.parsing import parse

    def read(expr: str, bound: dict[str, object]) -> object:
        root = parse(f"({expr});", "javascript").root_node
        return literal(root.named_children[0].named_children[0].named_children[0], bound)

    row = {"$": "object", "v": [["1", "one"], ["out", [5, 6]]]}
    bound: dict[str, object] = {"t": row, "input": "out", "s": "a😀"}
    assert read("t.out", bound) == [5, 6] and read("t['out']", bound) == [5, 6]
    assert read("t[input]", bound) == [5, 6] and read("t[1]", bound) == "one"
    assert read("t.out[1]", bound) == 6 and read("t.out.length", bound) == 2
    assert read("s.length", bound) == 3  # UTF-16 units, as JavaScript counts
    for missing in ("t.none", "t.out[2]", "u.out", "t[other]", "Math.PI"):
        with pytest.raises(NotLiteral):
            read(missing, bound)
