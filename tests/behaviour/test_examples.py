"""Docstring examples: doctest prompts, calls in prose, Input/Output pairs, "For ..." lines."""

from __future__ import annotations

from codequorum.behaviour.examples import docstring, doctest_cases
from codequorum.behaviour.input_plan import find_function, parameters
from codequorum.core.model import Receiver

DOC_CODE = '''
def f(xs: list[int], k: int = 2) -> list[int]:
    """Sort.

    >>> f([3, 1, 2])
    [1, 2, 3]
    >>> f([])
    []
    >>> f(xs=[2, 1])
    [1, 2]
    >>> f(some_var)
    [0]
    >>> print(f([1]))
    [1]
    >>> f([5, 4]) == [4, 5]
    True

    f([9, 8]) ➞ [8, 9]
    f([7, 6]) == [6, 7]
    f([0]) -> <something>
    """
    return sorted(xs)
'''


def test_doctest_cases_are_read_without_running() -> None:
    fn = find_function(DOC_CODE, "f")
    assert fn is not None
    cases = doctest_cases(fn, "f")
    got = [(c.args, c.kwargs, c.expected, c.has_expected) for c in cases]
    assert got == [
        (([3, 1, 2],), {}, [1, 2, 3], True),
        (([],), {}, [], True),
        ((), {"xs": [2, 1]}, [1, 2], True),
        (([5, 4],), {}, [4, 5], True),
        (([9, 8],), {}, [8, 9], True),
        (([7, 6],), {}, [6, 7], True),
        (([0],), {}, None, False),
    ]
    assert cases[0].name == "f([3, 1, 2])"
    assert [p.name for p in parameters(fn)] == ["xs"]  # k has a default


PROSE_CODE = '''
def g(x, y=0):
    """Examples as prose docstrings write them.

    >>> g(1) == 5
    >>> g(2) == 6
    True

    * g(3) => [1, 2]
    - g(4) => true
    g(5) returns 'ab' # the first two letters
    g(6) should return 16.
    g(7)   # returns "db1111db"
    g(8) => "a # b"
    g(9) returns whatever it likes
    """
'''


def test_prose_examples_read_their_expected_values() -> None:
    fn = find_function(PROSE_CODE, "g")
    assert fn is not None
    got = [(c.args, c.expected, c.has_expected) for c in doctest_cases(fn, "g")]
    assert got == [
        ((1,), 5, True),  # ``>>> g(1) == 5`` with no output line
        ((2,), 6, True),
        ((3,), [1, 2], True),
        ((4,), True, True),
        ((5,), "ab", True),
        ((6,), 16, True),
        ((7,), "db1111db", True),
        ((8,), "a # b", True),
        ((9,), None, False),
    ]


def _cases(code: str, name: str) -> list[tuple[tuple[object, ...], object, bool]]:
    fn = find_function(code, name)
    assert fn is not None
    return [(c.args, c.expected, c.has_expected) for c in doctest_cases(fn, name)]


BROKEN_PROMPT = '''
def strip(text):
    """Removes vowels.
    >>> strip('')
    ''
    >>> strip("ab
    c")
    'b
    c'
    >>> strip('abc')
    'bc'
    """
'''


def test_one_broken_prompt_does_not_lose_the_others() -> None:
    # the docstring holds a real newline where ``\\n`` was meant: doctest refuses it whole
    assert _cases(BROKEN_PROMPT, "strip") == [(("",), "", True), (("abc",), "bc", True)]


INPUT_OUTPUT = '''
def pick(arr, k=1):
    """Picks.

    Example 1:
        Input: [4,2,3]
        Output: [2, 1]
        Explanation: 2 is the smallest even value.

    Example 2:
        Input: arr = [5, 0], k = 2
        Output: 0 # the first one
    Input: [1] Output: []
    Input: arr = [9]
    Input: colour = 3
    Output: 7
    Input: [1], 2, 3
    Output: 4
    """
'''


def test_input_output_pairs_read_positional_and_named_arguments() -> None:
    assert _cases(INPUT_OUTPUT, "pick") == [
        (([4, 2, 3],), [2, 1], True),
        (([5, 0], 2), 0, True),  # named in the parameters' order: positional
        (([1],), [], True),  # Output on the same line
        (([9],), None, False),  # the next Input comes before any Output
        # ``colour`` is no parameter, and three values are more than ``pick`` takes
    ]


FOR_LINES = '''
def total(lst, s=""):
    """Sums.

    For lst = [1,2,3] the output should be 6
    For lst = []  the output should be 0.
    For s = "ab", lst = [1], the result should be ('ab',False)
    for total([4], 'x') == 'x4'
    Note that total(lst) returns a number.
    For lst = [1 the output should be 1
    """
'''


def test_for_lines_and_calls_inside_sentences() -> None:
    fn = find_function(FOR_LINES, "total")
    assert fn is not None
    got = [(c.args, c.kwargs, c.expected, c.has_expected) for c in doctest_cases(fn, "total")]
    assert got == [
        (([4], "x"), {}, "x4", True),  # a call inside a sentence
        (([1, 2, 3],), {}, 6, True),
        (([],), {}, 0, True),
        (([1], "ab"), {}, ("ab", False), True),  # named out of order: placed by name
    ]


def test_a_call_given_twice_keeps_its_expected_value() -> None:
    code = '''
def total(lst):
    """total([1, 2]) is worked out below.

    For lst = [1, 2] the output should be 3
    """
'''
    assert _cases(code, "total") == [(([1, 2],), 3, True)]


METHOD_CODE = '''
def area(self, k=1):
    """Area, times k.

    >>> Square(3).area()
    9
    >>> Square(side=2).area(2) == 8
    True
    >>> geo.Square(1).area(k=3)
    3
    >>> Square.area(Square(1))
    >>> Square(x).area()
    0
    >>> Square(3).perimeter
    12
    >>> s.area()
    1
    """
'''


def test_a_methods_prompts_say_what_it_is_called_on() -> None:
    fn = find_function(METHOD_CODE, "area")
    assert fn is not None
    got = [(c.name, c.args, c.kwargs, c.expected, c.receiver) for c in doctest_cases(fn, "area")]
    assert got == [
        ("Square(3).area()", (), {}, 9, Receiver("Square", (3,))),
        ("Square(side=2).area(2)", (2,), {}, 8, Receiver("Square", (), {"side": 2})),
        ("geo.Square(1).area(k=3)", (), {"k": 3}, 3, Receiver("geo.Square", (1,))),
    ]  # not literal (Square(1), x), another attribute, a name: left out
    perimeter = find_function(METHOD_CODE.replace("def area", "def perimeter"), "perimeter")
    assert perimeter is not None
    read = [(c.name, c.args, c.expected, c.receiver)
            for c in doctest_cases(perimeter, "perimeter")]
    assert read == [("Square(3).perimeter", (), 12, Receiver("Square", (3,)))]


def test_brackets_inside_a_prose_examples_strings_are_text() -> None:
    """HumanEval/119's ``match_parens([')', ')']) == 'No'`` and /132's
    ``is_nested('[]]]]]]][[[[[]') ➞ False`` were lost: the brackets in their strings closed
    the call early. An apostrophe in the sentence (``it's``) opens no string."""
    code = ('def match_parens(lst):\n    """Examples:\n'
            "    match_parens(['()(', ')']) == 'Yes'\n"
            "    match_parens([')', ')']) == 'No'\n"
            "    It's said: match_parens(['(', ')']) == 'Yes'\n"
            '    """\n')
    assert _cases(code, "match_parens") == [
        ((["()(", ")"],), "Yes", True), (([")", ")"],), "No", True),
        ((["(", ")"],), "Yes", True)]


WORKED = '''
def fruit(s, n):
    """Prose examples that show their working.

    fruit("5 apples and 6 oranges", 19) -> 19 - 5 - 6 = 8
    fruit("0 apples", 3) == 3 - 0 = 3
    fruit("a", 2) = 1 + 1 = 2
    fruit("1example", 1) # => 'No' (it starts with a digit)
    """
'''


def test_a_worked_sum_gives_its_result_and_an_aside_is_left_out() -> None:
    assert _cases(WORKED, "fruit") == [
        (("5 apples and 6 oranges", 19), 8, True),
        (("0 apples", 3), 3, True),
        # ``=`` as the arrow states a term (HumanEval/130's ``tri(2) = 1 + (2 / 2) = 2``)
        (("a", 2), None, False),
        (("1example", 1), "No", True),
    ]


WORDS = '''
def is_happy(s):
    """For example:
    is_happy(a) => False
    is_happy(abcd) => True
    is_happy(s) => True
    """
'''

ONE_WORD = '''
def is_happy(s):
    """is_happy(abcd) => True"""
'''


def test_bare_words_are_strings_where_two_lines_write_them_so() -> None:
    # ``s`` names the parameter: that line says what the parameter gives, not an input
    assert _cases(WORDS, "is_happy") == [(("a",), False, True), (("abcd",), True, True)]
    assert _cases(ONE_WORD, "is_happy") == []


RENAMED = '''
def numerical_letter_grade(grades):
    """Example:
    grade_equation([4.0, 3, 1.7]) ==> ['A+', 'B', 'C-']
    assert grade_equation([0.0]) => ['E']
    len(grades) == 3
    """
'''

TWO_OTHERS = '''
def g(xs):
    """grade([1]) ==> 1
    score([2]) ==> 2
    """
'''


def test_examples_written_for_an_earlier_name_call_the_function() -> None:
    fn = find_function(RENAMED, "numerical_letter_grade")
    assert fn is not None
    cases = doctest_cases(fn, "numerical_letter_grade")
    assert [(c.args, c.expected) for c in cases] == [(([4.0, 3, 1.7],), ["A+", "B", "C-"]),
                                                     (([0.0],), ["E"])]
    assert cases[0].name == "numerical_letter_grade([4.0, 3, 1.7])"
    assert _cases(TWO_OTHERS, "g") == []  # which one is meant is not said


BLOCKS = '''
def max_fill(grid, capacity):
    import math
    """Example 1:
        Input:
            grid : [[0,0,1,0], [1,1,1,1]]
            bucket_capacity : 1
        Output: 6

    For grid = [[1]], capacity = 2, the wells hold 1 the output should be 1.

    grid = [[1, 1]]
    capacity = 1
        -> two units, one bucket each
    return 2
    """
'''


def test_named_lines_under_input_a_for_line_with_words_and_assignments_then_return() -> None:
    fn = find_function(BLOCKS, "max_fill")
    assert fn is not None and docstring(fn) is not None  # the text after ``import math``
    assert _cases(BLOCKS, "max_fill") == [
        (([[0, 0, 1, 0], [1, 1, 1, 1]], 1), 6, True),  # names not the parameters': in order
        (([[1]], 2), 1, True),
        (([[1, 1]], 1), 2, True),
    ]


def test_long_for_lines_of_pieces_are_read_once_each_not_prefix_by_prefix() -> None:
    # 200 lines of 600 comma pieces each: read prefix by prefix, this docstring took
    # minutes; the value after them is still read.
    noise = "\n".join("    For " + "x, " * 600 + "the output should be 1" for _ in range(200))
    last = "    For lst = [1], the sum, the output should be 1"
    code = f'def total(lst):\n    """\n{noise}\n{last}\n    """\n'
    assert _cases(code, "total") == [(([1],), 1, True)]
