"""Examples in prose in a JavaScript comment: ``Input:``/``Output:`` and ``For ... the
output should be ...``, as MultiPL-E's prompts keep them from the Python docstrings."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_inputs import examples
from codequorum.behaviour.runtimes.js_prose import arguments, prose_examples


def test_input_and_output_lines_name_the_parameters_or_give_them_in_order() -> None:
    prompt = ("//    Input: arr = [111,21,3,4000,5,6,7,8,9], k = 4\n"
              "//    Output: 24 # sum of 21 + 3\n"
              "//    Input: k = 1, arr = [5]   Output: 5\n"
              "function add_elements(arr, k){\n}")
    assert examples(prompt, "add_elements") == [
        (([111, 21, 3, 4000, 5, 6, 7, 8, 9], 4), 24, True), (([5], 1), 5, True)]
    assert examples("// Input: 3\n// Output: (1, 2)\nfunction eop(n){\n}", "eop") == [
        ((3,), [1, 2], True)]  # Python's tuple, as MultiPL-E's tests give it: an array


def test_for_lines_give_the_named_arguments_and_the_value() -> None:
    prompt = ('//For s = "abcde", c = "ae", the result should be (\'bcd\',False)\n'
              "//For lst = [1,2] the output should be 6.\n"
              "function reverse_delete(s, c){\n}")
    assert examples(prompt, "reverse_delete") == [(("abcde", "ae"), ["bcd", False], True)]


def test_names_that_are_not_the_parameters_or_values_that_are_not_literals_are_no_input(
        ) -> None:
    assert arguments("arr = [1], k = 4", ["arr", "k"]) == ([1], 4)
    assert arguments("k = 4, arr = [1]", ["arr", "k"]) == ([1], 4)
    assert arguments("arr = [1]", ["arr", "k"]) is None  # k missing
    assert arguments("arr = [1], n = 4", ["arr", "k"]) is None
    assert arguments("arr = [1], arr = [2]", ["arr", "k"]) is None
    assert arguments("arr = xs, k = 4", ["arr", "k"]) is None
    assert arguments('"a, b", [1, 2]', ["s", "xs"]) == ("a, b", [1, 2])
    assert prose_examples(["Input: 3", "Output: what it is"], ["n"], str) == [((3,), None, False)]


def test_named_lines_under_input_for_lines_with_words_and_assignments_then_return() -> None:
    text = ("//Example 1:\n//    Input: \n//        grid : [[0,0,1,0], [1,1,1,1]]\n"
            "//        bucket_capacity : 1\n//    Output: 6\n"
            "//For grid = [[1]], capacity = 2, the wells hold 1 the output should be 1.\n"
            "//grid = [[1, 1]]\n//capacity = 1\n//    -> two units, one bucket each\n"
            "//return 2\nfunction max_fill(grid, capacity){\n}")
    assert examples(text, "max_fill") == [
        (([[0, 0, 1, 0], [1, 1, 1, 1]], 1), 6, True),  # names not the parameters': in order
        (([[1]], 2), 1, True), (([[1, 1]], 1), 2, True)]


def test_long_for_lines_of_pieces_are_read_once_each_not_prefix_by_prefix() -> None:
    noise = "\n".join("// For " + "x, " * 600 + "the output should be 1" for _ in range(200))
    text = f"{noise}\n// For lst = [1], the sum, the output should be 1\nfunction total(lst){{\n}}"
    assert examples(text, "total") == [(([1],), 1, True)]
