"""A parameter's type from how the versions use it."""

from __future__ import annotations

import ast

from codequorum.behaviour.usage_scope import imported_names, top_functions
from codequorum.behaviour.usage_types import usage_spec


def _spec(*bodies: str, name: str = "p", params: str = "") -> object:
    fns = []
    for body in bodies:
        node = ast.parse(f"def f({params or name}):\n" + "".join(
            f"    {line}\n" for line in body.splitlines())).body[0]
        assert isinstance(node, ast.FunctionDef)
        fns.append(node)
    return usage_spec(fns, name)


def test_each_use_asks_for_its_kind() -> None:
    assert _spec("return p[0]") == ("list", ("int",))
    assert _spec("return len(p)") == ("list", ("int",))
    assert _spec("for x in p:\n    pass") == ("list", ("int",))
    assert _spec("return p + 1") == ("int",)
    assert _spec("return p / 2") == ("float",)
    assert _spec("return range(p)") == ("int",)
    assert _spec("return p.lower()") == ("str",)
    assert _spec("return p + '!'") == ("str",)
    assert _spec("return list(p.items())") == ("dict", ("str",), ("int",))
    assert _spec("p.append(1)") == ("list", ("int",))
    assert _spec("return float(p) - m") == ("float",)
    assert _spec("return math.isnan(p)") == ("float",)
    assert _spec("return int(p)") == ("int",)


def test_the_strongest_use_over_all_versions_wins_and_nothing_telling_is_none() -> None:
    assert _spec("return p[0]", "return p.strip()") == ("str",)
    assert _spec("return p[0] + 1") == ("list", ("int",))
    assert _spec("return q(p)") is None
    assert _spec("return p + q", params="p, q") is None  # joins strings and lists too
    assert _spec("return p - q", params="p, q") == ("int",)


def test_an_async_functions_iterated_parameter_is_a_list() -> None:
    """asyncstdlib's ``sum(iterable, start=0)`` (``async for item in aiter(iterable)``, an
    alias hint the inputs cannot draw) got no input at all."""
    for body in ("async for x in p:\n        pass", "async for x in aiter(p):\n        pass",
                 "return [x async for x in p]"):
        node = ast.parse(f"async def f(p):\n    {body}\n").body[0]
        assert isinstance(node, ast.AsyncFunctionDef)
        assert usage_spec([node], "p") == ("list", ("int",)), body


INT, STR, LIST = ("int",), ("str",), ("list", ("int",))
DICT = ("dict", ("str",), ("int",))


def test_an_equality_with_a_literal_asks_for_its_type() -> None:
    assert _spec("return p == 1000000") == INT  # ``is_woodall(x)``
    assert _spec("if p == 1 or p == 2:\n    return 'winter'") == INT
    assert _spec("return 3 != p") == INT
    assert _spec("return p == 0.5") == ("float",)
    assert _spec("return p == 'abc'") == STR
    # nothing telling, only compared: a number is the fair value (not the literal's type)
    assert _spec("return p is None") == INT and _spec("return p == True") == INT


def test_a_literal_or_a_str_compared_after_iteration_still_decides_by_rank() -> None:
    assert _spec("if p == '':\n    return 0\nfor c in p:\n    pass") == STR
    assert _spec("if p == 0:\n    return []\nfor x in p:\n    pass") == LIST


def test_a_comparison_with_a_length_asks_for_a_number() -> None:
    assert _spec("return [w for w in ws if len(w) > p]", params="p, ws") == INT
    assert _spec("return p <= len(xs)", params="xs, p") == INT


def test_str_of_a_parameter_asks_for_a_number() -> None:
    assert _spec("return sum(int(d) for d in str(p))") == INT  # ``is_Diff(n)``
    assert _spec("return str(p)", "return p[0]") == LIST  # the weakest kind: anything wins


def test_a_regular_expression_searches_a_string() -> None:
    for body in ("return re.findall(r'[a-z]+', p)", "return re.split(r'\\s+', p)",
                 "return re.sub('a', 'b', p)", "return re.search(p, 'text')",
                 "return re.compile('a+').findall(p)",
                 "pat = re.compile('a+')\nreturn pat.sub('', p)"):
        assert _spec(body) == STR, body


def test_a_call_that_walks_its_argument_asks_for_a_list() -> None:
    for body in ("return list(map(int, p))", "return list(filter(None, p))",
                 "return Counter(p).most_common(1)", "return collections.Counter(p)",
                 "heapq.heapify(p)", "return heapq.nsmallest(1000, p)", "return zip(*p)"):
        assert _spec(body) == LIST, body
    assert _spec("return heapq.nlargest(p, xs)", params="p, xs") == INT


def test_a_count_taken_first_does_not_tell_a_swapped_iterable() -> None:
    """``heapq.nlargest(nums, k)`` is written as well as ``heapq.nlargest(k, nums)``: a list
    there would outrank ``range(k)``."""
    assert _spec("return heapq.nlargest(nums, p)", "return [0 for _ in range(p)]",
                 name="p", params="nums, p") == INT


def test_unpacking_into_a_dict_asks_for_a_mapping() -> None:
    assert _spec("return {**p, **q}", params="p, q") == DICT
    assert _spec("return dict(**p)") == DICT


def test_the_argument_of_a_str_only_method_is_a_string() -> None:
    for body in ("return s.replace(p, '')", "return s.split(p)", "return s.startswith(p)",
                 "return s.endswith(p)", "return s.find(p)", "return s.strip(p)",
                 "return s.partition(p)", "return s.lower().replace(p, '')",
                 "return ', '.split(p)", "return s[0].endswith(p)"):
        assert _spec(body, params="s, p") == STR, body
    assert _spec("return s.replace('a', p)", params="s, p") == STR


def test_a_modules_split_or_a_shared_method_says_nothing() -> None:
    assert _spec("return np.split(p, 2)") is None  # a module's function, not ``str.split``
    # ``count`` and ``index`` are a list's too: ``p`` is an element of whatever ``s`` is
    assert _spec("return s.count(p)", params="s, p") == INT
    assert _spec("return s.index(p), s.upper()", params="s, p") == STR


def test_a_parameter_only_passed_to_an_unknown_function_stays_unknown() -> None:
    assert _spec("return extended_gcd(p, 3)") is None


def test_a_repeat_count_is_a_number() -> None:
    assert _spec("return [0] * p") == INT
    assert _spec("return '-' * p") == INT
    assert _spec("return p + [1]") == LIST


def test_a_slice_bound_is_a_number() -> None:
    assert _spec("return xs[:p]", params="xs, p") == INT
    assert _spec("return xs[p:-1]", params="xs, p") == INT


def test_a_literal_membership_asks_for_the_literals_type() -> None:
    assert _spec("return p in 'aeiou'") == STR
    assert _spec("return p in (1, 2, 3)") == INT
    assert _spec("return p in (1, 'a')") is None


def test_compared_with_an_element_of_a_parameter_it_is_one() -> None:
    assert _spec("return sum(1 for x in a if x == p)", params="a, p") == INT
    assert _spec("for num in a:\n    if num > p:\n        return num", params="a, p") == INT
    assert _spec("return a[0] + a[1] == p", params="a, p") == INT
    assert _spec("s.lower()\nreturn [c for c in s if c == p]", params="s, p") == STR
    assert _spec("return [k for k in d if k == p], d.items()", params="d, p") == STR
    assert _spec("return d['x'] == p, d.items()", params="d, p") == INT


def test_a_parameter_in_another_is_its_element() -> None:
    assert _spec("return p in xs", params="xs, p") == INT  # ``xs`` a list from ``in``
    assert _spec("return p in s, s.upper()", params="s, p") == STR
    assert _spec("return p in d, d.keys()", params="d, p") == STR


def test_a_loop_variable_over_something_else_tells_nothing() -> None:
    # ``a`` is a string: were ``x`` read as its element, ``p`` would be one too
    assert _spec("a.lower()\nfor x in range(9):\n    pass\nreturn x == p",
                 params="a, p") == INT
    assert _spec("a.lower()\nfor x in a:\n    pass\nfor x in b:\n    pass\nreturn x == p",
                 params="a, b, p") == INT


def test_a_parameter_no_version_reads_is_a_number() -> None:
    assert _spec("return sorted(arr)[0]", "return arr[-1]", params="arr, p") == INT
    assert _spec("return sorted(arr)[0]", "return q(p)", params="arr, p") is None  # read once
    assert _spec("p = 3\nreturn p") == INT  # read after it is assigned: only moved


def test_a_version_without_the_parameter_keeps_it_unknown() -> None:
    fns = [f for code in ("def f(a, p):\n    return a\n", "def f(a, q):\n    return q(a)\n")
           if isinstance(f := ast.parse(code).body[0], ast.FunctionDef)]
    assert len(fns) == 2 and usage_spec(fns, "p") is None


def test_a_name_that_only_holds_the_parameter_speaks_for_it() -> None:
    """``t = p`` then ``t.lower()``: the alias's use is the parameter's; a name that is
    also given another value (a later assignment, a loop) is no alias."""
    assert _spec("t = p\nreturn t.lower()") == ("str",)
    assert _spec("cur = p\nfor x in q:\n    if x < cur:\n        return x",
                 params="p, q", name="p") == ("int",)  # compared with an element of a list
    assert _spec("t = p\nt = 'a'\nreturn t.lower()") == INT  # ``p`` only moved
    assert _spec("t = p\nfor t in range(3):\n    pass\nreturn t.lower()") == INT
    # two targets: no alias, and ``p`` itself is only moved
    assert _spec("a = b = p\nreturn a.lower()") == INT


def test_a_parameter_only_moved_compared_or_computed_with_is_a_number() -> None:
    """MBPP's ``swap_numbers(a, b)``, ``check_isosceles(x, y, z)``, ``tn_ap(a, n, d)``:
    nothing in them asks for a type, so no input was drawn and no risk was given."""
    assert _spec("a, b = b, a\nreturn a, b", name="a", params="a, b") == INT
    assert _spec("return x == y or y == z", name="y", params="x, y, z") == INT
    assert _spec("return a + (n - 1) * d", name="a", params="a, n, d") == INT
    assert _spec("return sorted([a, b, c])[1]", name="b", params="a, b, c") == INT
    assert _spec("return max(a, b)", name="a", params="a, b") == INT
    assert _spec("cur = p\nreturn cur if cur > 0 else -cur") == INT
    assert _spec("print(p)\nreturn repr(p)") == INT  # any value goes
    # toolz's ``check_required_args(sig)``: ``n, func, exclude, spec = sig`` unpacks it
    assert _spec("n, func, exclude, spec = p\nreturn g(func, spec)") is None
    # ``+`` alone joins strings and lists: a number only beside what can only be one
    assert _spec("return a + b + c", name="a", params="a, b, c") is None
    assert _spec("return a + len(b)", name="a", params="a, b") == INT
    assert _spec("return a + 'ab' * 2", name="a") is None  # a string, twice
    assert _spec("return a + [0] * n", name="a", params="a, n") is None
    long_sum = " + ".join(["p", *(["(n - 1)"] * 2000)])  # deeper than Python's recursion
    assert _spec(f"return {long_sum}", params="p, n") == INT  # no recursion on its length


def test_a_value_used_beyond_a_number_keeps_it_unknown() -> None:
    assert _spec("return ''.join([p, q])", params="p, q") is None  # packed, then joined
    assert _spec("return p.x", "return p + 1") == INT  # one telling use decides
    assert _spec("return p.x") is None
    assert _spec("return g(p)", "return p") is None  # one version passes it on


def test_a_sum_is_what_its_terms_are() -> None:
    assert _spec("return tuple(p + q)", params="p, q") == LIST
    assert _spec("return p + q > 'm'", params="p, q") == STR
    assert _spec("return max(p, q)", params="p, q") == INT  # not a list: two values
    assert _spec("return (p + q) / 2", params="p, q") == ("float",)


def test_an_argument_of_a_list_method_is_an_element_of_its_receiver() -> None:
    """MBPP's ``heap_replace(heap, a)``: ``heap.index(a)``; ``insert_element(list,
    element)``: ``list.insert(i, element)``."""
    assert _spec("i = h.index(p)\nh.pop(i)", params="h, p") == INT
    assert _spec("for i, _ in enumerate(xs):\n    xs.insert(i, p)", params="xs, p") == INT
    assert _spec("return s.count(p), s.lower()", params="s, p") == STR
    assert _spec("xs.extend(p)", params="xs, p") == LIST


def test_a_loop_over_a_mappings_items_or_an_enumeration_walks_its_elements() -> None:
    """MBPP's ``dict_filter(dict, n)``: ``for key, value in dict.items(): if value == n``."""
    assert _spec("return {k: v for k, v in d.items() if v == p}", params="d, p") == INT
    assert _spec("return [k for k, v in d.items() if k == p]", params="d, p") == STR
    assert _spec("return [v for v in d.values() if v > p], d.keys()", params="d, p") == INT
    assert _spec("for i, c in enumerate(s):\n    if c == p:\n        return i\ns.lower()",
                 params="s, p") == STR


def test_known_functions_ask_for_their_arguments_types() -> None:
    assert _spec("return ord(p)") == STR
    assert _spec("return list(combinations_with_replacement(xs, p))", params="xs, p") == INT
    assert _spec("return list(itertools.permutations(p, 2))") == LIST
    # more-itertools' ``pairwise(iterable)`` and ``batched(iterable, n)``
    assert _spec("a, b = tee(p)\nnext(b, None)\nreturn zip(a, b)") == LIST
    assert _spec("it = iter(xs)\nreturn tuple(islice(it, p))", params="xs, p") == INT
    assert _spec("return statistics.median(p)") == LIST
    assert _spec("return zip(*tee(xs, p))", params="xs, p") == INT
    assert _spec("return sorted(random.sample(range(9), p))") == INT
    # imported bare (``from heapq import heappush``, ``from math import gcd``)
    assert _spec("heappush(p, 3)\nreturn p") == LIST
    assert _spec("return nlargest(p, xs)", params="p, xs") == INT
    assert _spec("return gcd(p, 12)") == INT and _spec("return math.isqrt(p)") == INT
    assert _spec("return prod(p)") == LIST
    assert _spec("return functools.reduce(operator.add, p)") == LIST
    assert _spec("return math.radians(p)") == ("float",)
    assert _spec("return sin(p)") == ("float",)
    assert _spec("return abs(xs[0] - xs[1]) == p", params="xs, p") == INT


def test_an_index_into_something_not_a_parameter_is_a_number() -> None:
    assert _spec("return sorted(xs, key=lambda x: x[p])", params="xs, p") == INT
    assert _spec("return d[p]", params="d, p") is None  # ``d`` may be a mapping


def test_a_type_checked_with_isinstance_is_one_the_version_handles() -> None:
    assert _spec("if isinstance(p, str):\n    return 1\nreturn 0") == STR
    assert _spec("return isinstance(p, (int, float)) and p > 0") == ("float",)
    assert _spec("return isinstance(p, tuple)") == LIST
    assert _spec("return isinstance(p, Path)") is None  # a class it does not draw


def test_a_librarys_function_is_known_under_the_name_an_import_gives_it() -> None:
    module = ast.parse("import itertools as it\nfrom itertools import pairwise as ip\n"
                       "from statistics import mean\n")
    imports = imported_names(module)
    assert imports == {"it": "itertools", "ip": "itertools.pairwise",
                       "mean": "statistics.mean"}
    listed = ("list", ("int",))
    for body, without in (("list(it.tee(p))", None), ("ip(p)", None), ("mean(p)", listed)):
        fn = ast.parse(f"def f(p):\n    return {body}\n").body[0]
        assert isinstance(fn, ast.FunctionDef)
        assert usage_spec([fn], "p", imports) == listed
        assert usage_spec([fn], "p") == without  # ``mean`` is known bare too
    inside = ast.parse("def f(p):\n    import heapq as hq\n    hq.heapify(p)\n").body[0]
    assert isinstance(inside, ast.FunctionDef)
    assert usage_spec([inside], "p") == ("list", ("int",))
    shadowed = ast.parse("def f(p, it):\n    return it.tee(p)\n").body[0]
    assert isinstance(shadowed, ast.FunctionDef)
    assert usage_spec([shadowed], "p", imports) is None  # ``it`` is a parameter here


def test_a_parameter_passed_to_a_helper_is_what_the_helpers_parameter_is() -> None:
    module = ast.parse(
        "def is_prime(k):\n    return k > 1 and all(k % i for i in range(2, k))\n\n"
        "def words(text, sep):\n    return text.split(sep)\n\n"
        "def deeper(xs):\n    return middle(xs)\n\n"
        "def middle(ys):\n    return last(ys)\n\n"
        "def last(zs):\n    return zs[0]\n\n"
        "def loop(n):\n    return loop(n)\n")
    helpers = top_functions(module)

    def spec(body: str, name: str = "p") -> object:
        fn = ast.parse(f"def f(p, q):\n    return {body}\n").body[0]
        assert isinstance(fn, ast.FunctionDef)
        return usage_spec([fn], name, helpers=helpers)

    assert spec("is_prime(p)") == ("int",)
    assert spec("words(q, p)") == ("str",)
    assert spec("deeper(p)") is None  # three helpers deep: not followed
    assert spec("middle(p)") == ("list", ("int",))
    assert spec("loop(p)") is None
    assert spec("unknown(p)") is None
    rebound = ast.parse("def f(p):\n    is_prime = str\n    return is_prime(p)\n").body[0]
    assert isinstance(rebound, ast.FunctionDef)
    assert usage_spec([rebound], "p", helpers=helpers) is None


def test_a_parameter_that_is_called_or_mapped_is_a_function() -> None:
    function = ("callable", ("int",), 1)
    assert _spec("return p(1) + 1") == function
    assert _spec("def inner(*a):\n    return p(*a)\nreturn inner") == function
    assert _spec("return list(map(p, xs))", params="p, xs") == function
    assert _spec("return list(filter(p, xs))", params="p, xs") == function
    assert _spec("return functools.reduce(p, xs)", params="p, xs") == function
    # read inside a function that is mapped: what that function does with it
    assert _spec("return list(map(lambda x: x * p, xs))", params="p, xs") == ("int",)
    # a called one outranks what else a version does with it
    assert _spec("return p(1)", "return p + 1") == function
